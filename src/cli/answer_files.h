// The answer's files (issue 35), for `tune --model` and `tune export`: --emit FORMATS writes the config to run in
// each library's terms (report/config_emitters.h) into --emit-dir, fitted to --devices and --max-memory; the lines
// returned name what was written.
#pragma once
#include <string>
#include <vector>

#include "cli/options.h"
#include "report/answer.h"

namespace tune::cli {

// --emit and --emit-dir, and the user's hardware the answer is fitted to (--devices, --max-memory).
po::options_description emit_flags();
// The answer's options from those flags, the job and the settings' warm-up share; throws std::invalid_argument
// quoting a bad --devices or --max-memory.
AnswerOptions answer_options(const po::variables_map& vm, const JobLength& job, double warmup_share);
// The formats --emit names, checked (an unknown one quoted, the known listed); empty without --emit.
std::vector<std::string> emit_formats(const po::variables_map& vm);
// Writes each format's file into --emit-dir (made when missing); returns "hf (TrainingArguments): PATH" per file.
// Throws std::invalid_argument naming a file that cannot be written.
std::vector<std::string> write_emitted_files(const po::variables_map& vm, const RunAnswer& answer);

}  // namespace tune::cli
