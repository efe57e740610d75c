// The Python trial worker as tune starts it (inductor and hf-eager backends): which python, which script,
// and a trial's two commands: `tune trial --dump-batches` writes the batches, the worker trains on them.
#pragma once
#include <string>
#include <vector>

namespace tune {

// A trial folder's files, as the commands name them (relative in command.sh, absolute when tune runs them).
struct TrialFiles {
  std::string spec;
  std::string batches;
  std::string result;
};

// $TUNE_PYTHON, else the python3 on PATH (the one scripts/setup installs torch into).
// Throws std::runtime_error naming what was looked for when there is none.
std::string python_executable();

// The worker script, src/compile/inductor_trial.py under tune_home(). Throws std::runtime_error when missing.
std::string python_worker_script();

// The commands, in order: the batch dump (which writes a failed result itself when the data is bad), then the worker.
std::vector<std::vector<std::string>> python_trial_commands(const std::string& tune_executable, const TrialFiles& files);

}  // namespace tune
