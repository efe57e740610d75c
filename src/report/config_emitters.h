// The answer (report/answer.h) in a training library's terms (issue 35): `tune --model ... --emit FORMAT` and
// `tune export --emit FORMAT` write it through these reporters:
//   hf          Hugging Face TrainingArguments keyword arguments as JSON: TrainingArguments(**json.load(f)) takes them
//   accelerate  accelerate's config file (accelerate launch --config_file): precision, device, torch.compile backend
//   lightning   a Python module: Trainer keyword arguments, configure_optimizers (AdamW and the schedule), compile
//   pytorch     a plain-PyTorch Python module: optimizer, scheduler, autocast and the torch.compile call
// What the library cannot express (tune's jit backend, a regional compile in the HF Trainer) is said in the file
// (run_name, or a comment), never dropped silently.
#pragma once
#include <string>

#include "report/answer.h"
#include "report/reporter.h"

namespace tune {

ReporterList<RunAnswer> config_emitters();
// The file name an emitted format gets: "tune-bert-base-cased-training-args.json", "tune-...-pytorch.py".
std::string emitted_file_name(const std::string& format, const std::string& model);
// What the answer's backend is in torch.compile's terms: {backend, mode} ({"", ""}: not torch.compile; then `note`
// says what it is and what a library gets instead).
struct CompileCall {
  std::string backend, mode, note;
};
CompileCall torch_compile_call(const std::string& tune_backend);

}  // namespace tune
