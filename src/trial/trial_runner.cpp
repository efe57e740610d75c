// Runs one trial from this process: a libtorch backend's steps here, a Python-worker backend's in the worker this
// process drives; both through the one measurement protocol (trial/measurement.h).
#include "trial/trial_runner.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <new>
#include <optional>

#include "compile/slowed_step.h"
#include "compile/train_step.h"
#include "data/batch_source.h"
#include "data/held_out.h"
#include "data/training_data.h"
#include "trial/lr_schedule.h"
#include "models/model_factory.h"
#include "models/model_flops.h"
#include "trial/backend_registry.h"
#include "trial/batch_dump.h"
#include "trial/data_parallel.h"
#include "trial/device_memory.h"
#include "trial/held_out_score.h"
#include "trial/paired_trial.h"
#include "trial/python_trial.h"
#include "trial/step_factory.h"
#include "trial/step_loop.h"
#include "trial/step_observers.h"
#include "trial/warning_capture.h"
#include "util/table_format.h"

namespace tune {

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const c10::OutOfMemoryError*>(&e)) return true;
  const std::string what = e.what();
  return what.find("not enough memory") != std::string::npos || what.find("can't allocate") != std::string::npos ||
         what.find("out of memory") != std::string::npos;
}

std::vector<Batch> trial_batch_pool(const TrialSpec& spec, std::vector<Batch>* held_out) {
  std::string data_description;
  std::vector<Batch> pool;
  const torch::Device device(spec.step.device);
  for (const Batch& b : trial_batches(spec, &data_description, held_out)) pool.push_back(b.to(device));
  if (held_out)
    for (Batch& b : *held_out) b = b.to(device);
  std::fprintf(stderr, "tune: data: %s\n", data_description.c_str());
  return pool;
}

std::unique_ptr<TrainStep> build_trial_step(const TrialSpec& spec, TrialResult& r, TrainableModel* kept) {
  auto model = build_model_with_weights(spec.model, spec.seed, spec.weights_dir, spec.step.attention);
  model.module->to(torch::Device(spec.step.device));
  r.parameter_count = parameter_count(*model.module);
  model.module->train();
  if (kept) *kept = model;  // the same module: the step trains its parameters in place
  auto step = make_train_step(spec.step.backend, model,
                              StepOptions{spec.learning_rate, spec.step.precision, spec.step.optimizer,
                                          has_lr_schedule(spec)});
  if (spec.test.inject_slowdown > 0) step = slow_down(std::move(step), spec.test.inject_slowdown);  // test-only
  return step;
}

namespace {

// The trial's log names the backend that built the step, whichever route ran it.
void log_compiled_step(const std::string& backend, double seconds, const std::string& info) {
  std::fprintf(stderr, "tune: compiled training step (backend=%s) in %.2f s: %s\n", backend.c_str(), seconds,
               info.c_str());
}

}  // namespace

bool prepare_trial_step(const TrialSpec& spec, TrainStep& step, const Batch& example, TrialResult& r) {
  try {
    const CompileReport report = step.prepare(example);
    r.compile_seconds = report.seconds;
    r.compile_info = report.info;
    log_compiled_step(step.backend(), report.seconds, report.info);  // the step's own name: its factory's entry
    return true;
  } catch (const CompileError& e) {
    r = failed_result(TrialStatus::compile_error, e.stage, e.what());
    return false;
  }
}

namespace {

// A classifier's batches: the entropy of their labels' frequencies (trial_result.h); 0 for other tasks.
double label_prior_loss(const TrialSpec& spec, const std::vector<Batch>& batches) {
  if (spec.model.task != "sequence_classification" || spec.model.num_labels < 2) return 0;
  return batches_label_entropy(batches);
}

TrialResult run_trial_body(const TrialSpec& spec, const std::string& work_dir) {
  TrialResult r;
  WarningCapture warnings;
  TrainableModel model;
  auto step = build_trial_step(spec, r, &model);
  const auto observer = make_trial_observer(spec, model, work_dir);
  std::vector<Batch> held_out;
  const std::vector<Batch> pool = trial_batch_pool(spec, &held_out);
  r.flops_per_step = trial_flops_per_step(spec, pool.front());
  r.label_prior_loss = label_prior_loss(spec, pool);
  if (!prepare_trial_step(spec, *step, pool.front(), r)) return r;
  StepLoop loop(spec, *step, pool, r, observer.get());
  const bool finished = run_measured_steps(spec, loop, r);
  r.warnings = warnings.messages();
  if (!finished) return r;
  if (observer) {
    r.observer_summary = observer->finish();
    r.observer_caveat = observer->caveat();
  }
  const std::string info = step->runtime_info();
  if (!info.empty()) r.compile_info += "; " + info;
  r.status = TrialStatus::ok;
  summarise_steps(spec, r);
  if (r.ok() && !held_out.empty())
    apply_held_out_score(score_held_out(model, held_out), batches_label_entropy(held_out), r);
  return r;
}

}  // namespace

std::vector<Batch> trial_batches(const TrialSpec& spec, std::string* data_description, std::vector<Batch>* held_out) {
  TrainingData data = load_training_data(spec.model, spec.data, data_description);
  if (held_out) *held_out = held_out_batches(data.held_out, spec.model, spec.seq_len, spec.batch_size);
  auto source = make_batch_source(spec.model, std::move(data), spec.seq_len, spec.batch_size, spec.seed + 1);
  // Throughput trials cycle 16 batches; a learning-rate trial sees fresh data at every step (up to 4096
  // batches), or a long run at a small batch would memorise 16 batches and score a loss no real run reaches.
  const int distinct = spec.purpose == TrialPurpose::learning_rate ? 4096 : 16;
  std::vector<Batch> pool;
  for (int i = 0; i < std::min(total_steps(spec), distinct); ++i) pool.push_back(source->next());
  return pool;
}

// T5's decoder length comes from the batch (span corruption fixes it per seq_len); 0 for other families.
double trial_flops_per_step(const TrialSpec& spec, const Batch& example) {
  const int decoder_len = example.decoder_input_ids.defined() ? example.decoder_input_ids.size(1) : 0;
  return training_flops(spec.model, spec.batch_size, spec.seq_len, decoder_len).total();
}

namespace {

// The worker's copy of the batches, removed however the trial ends (a search would keep one set per trial).
struct RemovedAtEnd {
  std::filesystem::path path;
  ~RemovedAtEnd() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

// A Python-worker backend: this process writes the trial's batches for the worker (the very batches a libtorch
// backend trains on; a data-parallel trial's global ones, each rank taking its rows), and runs the measurement
// protocol on the worker's steps (never throwing).
TrialResult run_worker_trial_body(const TrialSpec& spec, const std::string& work_dir) {
  std::string description;
  std::vector<Batch> held_out;
  const TrialSpec data_spec = spec.distributed.ranks > 1 ? global_batch_spec(spec) : spec;
  const std::vector<Batch> batches = trial_batches(data_spec, &description, &held_out);  // bad data: invalid
  std::fprintf(stderr, "tune: data: %s\n", description.c_str());
  const RemovedAtEnd copy{std::filesystem::path(work_dir) / "batches.pt"};
  const RemovedAtEnd held_out_copy{std::filesystem::path(work_dir) / "held_out.pt"};
  WorkerHeldOut scored;
  try {
    dump_batches(batches, copy.path.string());
    if (!held_out.empty()) {
      dump_batches(held_out, held_out_copy.path.string());
      scored = {held_out_copy.path.string(), batches_label_entropy(held_out)};
    }
  } catch (const std::exception& e) {
    return failed_result(TrialStatus::crashed, "dump_batches", e.what());
  }
  TrialResult r = run_python_worker_trial(spec, copy.path.string(), work_dir, {}, scored);
  r.flops_per_step = trial_flops_per_step(data_spec, batches.front());
  if (r.held_out_rows == 0) r.label_prior_loss = label_prior_loss(data_spec, batches);
  if (r.ok()) log_compiled_step(spec.step.backend, r.compile_seconds, r.compile_info);  // compiled inside its steps
  return r;
}

}  // namespace

// Intra-op threads from the instance. The inter-op pool can be sized once per process, before any
// parallel work: a trial process does it first; a second in-process trial (tests) keeps the first size.
void set_trial_threads(int threads) {
  at::set_num_threads(threads);
  static const bool interop_sized = [] {
    try {
      at::set_num_interop_threads(1);
      return true;
    } catch (const c10::Error&) {
      return false;
    }
  }();
  (void)interop_sized;
}

TrialResult run_trial_in_process(const TrialSpec& spec, const std::string& work_dir) {
  try {
    check_lr_schedule(spec);
  } catch (const std::invalid_argument& e) {
    return failed_result(TrialStatus::invalid, "setup", e.what());
  }
  if (spec.distributed.ranks > 1 && !runs_in_python(spec.step.backend)) return run_data_parallel_trial(spec, work_dir);
  if (runs_in_python(spec.step.backend) && spec.purpose != TrialPurpose::paired) {
    try {
      return run_worker_trial_body(spec, work_dir.empty() ? "." : work_dir);
    } catch (const std::invalid_argument& e) {
      return failed_result(TrialStatus::invalid, "setup", e.what());
    } catch (const std::exception& e) {
      return failed_result(TrialStatus::crashed, "setup", e.what());
    }
  }
  if (spec.threads > 0) set_trial_threads(spec.threads);
  if (!cap_device_memory(spec.step.device, spec.memory_limit_bytes))
    return failed_result(TrialStatus::invalid, "setup", "cannot cap " + spec.step.device + " memory at " +
                                                            std::to_string(spec.memory_limit_bytes) + " bytes");
  TrialResult r;
  try {
    r = spec.purpose == TrialPurpose::paired ? run_paired_trial_body(spec, work_dir) : run_trial_body(spec, work_dir);
  } catch (const std::invalid_argument& e) {
    r = failed_result(TrialStatus::invalid, "setup", e.what());
  } catch (const std::exception& e) {
    r = failed_result(is_out_of_memory(e) ? TrialStatus::oom : TrialStatus::crashed, "run", e.what());
  }
  r.peak_memory_bytes = peak_device_memory(spec.step.device);
  return r;
}

}  // namespace tune
