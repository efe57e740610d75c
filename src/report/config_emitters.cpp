// The answer's emitters (report/config_emitters.h): each writes the config to run in one library's own terms, with
// the figures it rests on, and says where the library has no term for what tune measured.
#include "report/config_emitters.h"

#include <nlohmann/json.hpp>

#include <cctype>

#include "trial/backend_registry.h"
#include "trial/trial_spec.h"
#include "util/paths.h"
#include "util/table_format.h"

namespace tune {

CompileCall torch_compile_call(const std::string& tune_backend) {
  StepSettings step;
  apply_backend_label(step, tune_backend);
  if (step.backend == "inductor") {
    CompileCall call{"inductor", step.compile_mode == kDefaultCompileMode ? "" : step.compile_mode, ""};
    if (step.compile_mode == "regional")
      call = {"inductor", "", "tune compiled each repeated transformer block once (inductor:regional, as accelerate's "
                              "compile_regions does); this compiles the whole model, which takes longer to compile"};
    if (step.dynamic_shapes) call.note = "tune compiled with a dynamic batch dimension (torch.compile(dynamic=True))";
    return call;
  }
  if (step.backend == "jit")
    return {"", "", "tune's pick is jit (libtorch TorchScript from C++), which torch.compile has no backend for: this "
                    "runs eager; the measured speed-up was jit's"};
  if (step.backend == "cuda-graph")
    return {"cudagraphs", "", "tune captured the whole step (forward, backward, optimizer) in one CUDA graph; "
                              "torch.compile's cudagraphs backend captures the model's graphs, the nearest equivalent"};
  return {};
}

namespace {

// One line on what the config is and what it was measured for: the files carry it where the library allows.
std::string provenance(const RunAnswer& a) {
  return "tune " + a.tune_version + ": " + a.model + " on " + a.instance + ", seq " + std::to_string(a.seq_len) +
         ", measured until " + a.measured_at + ": " + describe_run(a) + "; the rate: " + describe_rate_job(a);
}

class HfTrainingArgumentsEmitter : public Reporter<RunAnswer> {
 public:
  std::string format() const override { return "hf"; }
  void write(std::ostream& out, const RunAnswer& a) const override {
    const CompileCall call = torch_compile_call(a.backend);
    nlohmann::ordered_json args;
    args["output_dir"] = "tune-" + a.model;
    args["per_device_train_batch_size"] = a.per_device_batch;
    args["gradient_accumulation_steps"] = a.gradient_accumulation;
    args["learning_rate"] = a.job_learning_rate;
    args["lr_scheduler_type"] = a.lr_schedule == "cosine" ? "cosine" : "constant_with_warmup";
    args["warmup_steps"] = a.warmup_share;  // a float under 1 is a share of the steps (transformers 5 dropped warmup_ratio)
    args["weight_decay"] = 0.01;  // tune's AdamW (compile/optimizer_step.h), and no gradient clipping
    args["adam_beta1"] = 0.9, args["adam_beta2"] = 0.999, args["adam_epsilon"] = 1e-8;
    args["max_grad_norm"] = 0.0;
    args["optim"] = a.optimizer == "fused" ? "adamw_torch_fused" : "adamw_torch";
    args["bf16"] = a.precision == "bf16", args["fp16"] = a.precision == "fp16";
    args["torch_compile"] = a.compile && !call.backend.empty();
    if (args["torch_compile"]) {
      args["torch_compile_backend"] = call.backend;
      if (!call.mode.empty()) args["torch_compile_mode"] = call.mode;
    }
    if (a.device == "cpu") args["use_cpu"] = true;
    // TrainingArguments takes no unknown key, so what it cannot say goes in the run's name, which its loggers show.
    args["run_name"] = provenance(a) + "; compile: " + (a.compile ? "yes" : "no") + ", " + a.compile_reason +
                       (a.compile && !call.note.empty() ? "; " + call.note : "") +
                       (a.hardware_note.empty() ? "" : "; on your hardware: " + a.hardware_note) +
                       (a.devices > 1 ? "; launch on " + std::to_string(a.devices) + " devices (torchrun or accelerate)" : "");
    out << args.dump(2) << "\n";
  }
};

std::string python_string(const std::string& text) { return nlohmann::json(text).dump(); }

// The file's head as comments: what it is, what compiling would give, what the search did not find.
void write_comment_head(std::ostream& out, const RunAnswer& a, const std::string& comment = "#") {
  const CompileCall call = torch_compile_call(a.backend);
  out << comment << " " << provenance(a) << "\n" << comment << " compile: " << (a.compile ? "yes, " : "no, ")
      << a.compile_reason << "\n";
  if (a.compile && !call.note.empty()) out << comment << " " << call.note << "\n";
  for (const auto& mark : a.marks) out << comment << " caveat: " << mark << "\n";
  if (a.precision == "fp16") out << comment << " fp16: scale the loss (torch.amp.GradScaler), as tune's trials did\n";
  if (!a.hardware_note.empty()) out << comment << " on your hardware: " << a.hardware_note << "\n";
}

// The plain-PyTorch pieces both Python formats share: the settings, the optimizer, the schedule, the compile call.
void write_python_settings(std::ostream& out, const RunAnswer& a) {
  const CompileCall call = torch_compile_call(a.backend);
  out << "import contextlib\nimport math\n\nimport torch\n\n"
      << "BATCH_SIZE = " << a.per_device_batch << "  # per step, on each device\n"
      << "GRADIENT_ACCUMULATION = " << a.gradient_accumulation << "  # steps whose gradients add up before each update\n"
      << "DEVICES = " << a.devices << "  # data-parallel\nLEARNING_RATE = " << strf("%.6g", a.job_learning_rate) << "\n"
      << "PRECISION = " << python_string(a.precision) << "  # bf16/fp16: autocast mixed precision, fp32 weights\n"
      << "WARMUP_SHARE = " << strf("%.6g", a.warmup_share) << "\nSCHEDULE = " << python_string(a.lr_schedule) << "\n"
      << "COMPILE = " << (a.compile && !call.backend.empty() ? "True" : "False")
      << "\nCOMPILE_BACKEND = " << python_string(call.backend.empty() ? "inductor" : call.backend)
      << "\nCOMPILE_MODE = " << (call.mode.empty() ? "None" : python_string(call.mode)) << "\n\n\n"
      << "def make_optimizer(model):\n"
      << "    return torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, betas=(0.9, 0.999), eps=1e-8, "
         "weight_decay=0.01" << (a.optimizer == "fused" ? ", fused=True" : "") << ")\n\n\n"
      << "def make_scheduler(optimizer, total_steps):\n"
      << "    \"\"\"Linear warm-up over WARMUP_SHARE of the steps, then cosine decay to 0 (or constant), per step.\"\"\"\n"
      << "    warmup = max(1, round(WARMUP_SHARE * total_steps)) if WARMUP_SHARE > 0 else 0\n\n"
      << "    def factor(step):\n"
      << "        if step < warmup:\n            return (step + 1) / warmup\n"
      << "        if SCHEDULE != \"cosine\":\n            return 1.0\n"
      << "        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total_steps - warmup)))\n\n"
      << "    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)\n\n\n"
      << "def prepare(model):\n"
      << "    return torch.compile(model, backend=COMPILE_BACKEND, mode=COMPILE_MODE) if COMPILE else model\n";
}

class PytorchEmitter : public Reporter<RunAnswer> {
 public:
  std::string format() const override { return "pytorch"; }
  void write(std::ostream& out, const RunAnswer& a) const override {
    write_comment_head(out, a);
    out << "# Use: model = prepare(model); optimizer = make_optimizer(model); scheduler = make_scheduler(optimizer, "
           "total_steps)\n# each micro-batch of BATCH_SIZE: with autocast(device_type): loss = ... / "
           "GRADIENT_ACCUMULATION; loss.backward()\n# every GRADIENT_ACCUMULATION of them: optimizer.step(); "
           "scheduler.step(); optimizer.zero_grad()\n";
    write_python_settings(out, a);
    out << "\n\ndef autocast(device_type):\n"
        << "    dtype = {\"bf16\": torch.bfloat16, \"fp16\": torch.float16}.get(PRECISION)\n"
        << "    return torch.autocast(device_type, dtype=dtype) if dtype else contextlib.nullcontext()\n";
  }
};

// Lightning's names for a precision: Trainer(precision=...).
std::string lightning_precision(const std::string& precision) {
  return precision == "bf16" ? "bf16-mixed" : precision == "fp16" ? "16-mixed" : "32-true";
}

class LightningEmitter : public Reporter<RunAnswer> {
 public:
  std::string format() const override { return "lightning"; }
  void write(std::ostream& out, const RunAnswer& a) const override {
    write_comment_head(out, a);
    out << "# Use: Trainer(**TRAINER_KWARGS, max_steps=...); DataLoader(..., batch_size=BATCH_SIZE); in your "
           "LightningModule:\n#   def configure_optimizers(self): return configure_optimizers(self, "
           "self.trainer.estimated_stepping_batches)\n# and model = prepare(model) where you build it.\n";
    write_python_settings(out, a);
    out << "\n\nTRAINER_KWARGS = {\"accelerator\": " << python_string(a.device == "cuda" ? "gpu" : "cpu")
        << ", \"devices\": DEVICES, \"precision\": " << python_string(lightning_precision(a.precision))
        << ", \"accumulate_grad_batches\": GRADIENT_ACCUMULATION, \"gradient_clip_val\": None}\n\n\n"
        << "def configure_optimizers(module, total_steps):\n"
        << "    optimizer = make_optimizer(module)\n"
        << "    scheduler = make_scheduler(optimizer, int(total_steps))\n"
        << "    return {\"optimizer\": optimizer, \"lr_scheduler\": {\"scheduler\": scheduler, \"interval\": \"step\"}}\n";
  }
};

// accelerate's config file (`accelerate launch --config_file FILE train.py`): a process per device on one machine.
// It holds no batch size, rate or accumulation: those are the script's, given in the comments.
class AccelerateEmitter : public Reporter<RunAnswer> {
 public:
  std::string format() const override { return "accelerate"; }
  void write(std::ostream& out, const RunAnswer& a) const override {
    const CompileCall call = torch_compile_call(a.backend);
    write_comment_head(out, a);
    const std::string distributed = a.devices == 1 ? "'NO'" : a.device == "cuda" ? "MULTI_GPU" : "MULTI_CPU";
    out << "# Your script's own settings (accelerate's config has no key for them): DataLoader batch_size="
        << a.per_device_batch << " per device; AdamW lr=" << strf("%.6g", a.job_learning_rate)
        << " (betas 0.9/0.999, eps 1e-8, no gradient clipping), the rate found for: " << describe_rate_job(a) << "; "
        << "Accelerator(gradient_accumulation_steps=" << a.gradient_accumulation << ")\n"
        << "compute_environment: LOCAL_MACHINE\ndistributed_type: " << distributed << "\nnum_machines: 1\n"
        << "machine_rank: 0\nnum_processes: " << a.devices << "\nmixed_precision: "
        << (a.precision == "fp32" ? "'no'" : a.precision) << "\n"
        << "use_cpu: " << (a.device == "cpu" ? "true" : "false") << "\ndowncast_bf16: 'no'\n";
    if (a.compile && !call.backend.empty()) {
      std::string backend = call.backend;
      for (char& c : backend) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out << "dynamo_config:\n  dynamo_backend: " << backend << "\n";
      if (!call.mode.empty()) out << "  dynamo_mode: " << call.mode << "\n";
    }
  }
};

}  // namespace

ReporterList<RunAnswer> config_emitters() {
  return reporter_list<RunAnswer, HfTrainingArgumentsEmitter, AccelerateEmitter, LightningEmitter, PytorchEmitter>();
}

std::string emitted_file_name(const std::string& format, const std::string& model) {
  const std::string name = file_name_part(model);
  if (format == "hf") return "tune-" + name + "-training-args.json";
  if (format == "accelerate") return "tune-" + name + "-accelerate.yaml";
  return "tune-" + name + "-" + format + ".py";
}

}  // namespace tune
