// Runs one trial in its own process(es) and turns whatever happened to it into a typed result:
// a result file if the child wrote one, else timeout, oom (killed by SIGKILL) or crashed.
#include "trial/trial_process.h"

#include <signal.h>

#include <deque>
#include <filesystem>
#include <fstream>

#include "trial/backend_label.h"
#include "trial/python_trial.h"
#include "util/process.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

std::string last_lines(const fs::path& log, size_t count) {
  std::ifstream in(log);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > count) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

using Commands = std::vector<std::vector<std::string>>;

void write_reproducer(const fs::path& dir, const Commands& commands) {
  std::ofstream cmd(dir / "command.sh");
  cmd << "#!/bin/sh\n# Reruns this trial by hand; the result lands in result.json.\ncd \"$(dirname \"$0\")\"";
  for (const auto& argv : commands) {
    cmd << " &&";
    for (const auto& a : argv) cmd << " '" << a << "'";
  }
  cmd << "\n";
  fs::permissions(dir / "command.sh", fs::perms::owner_exec, fs::perm_options::add);
}

// libtorch backends: one `tune trial`; Python-worker backends: the batch dump, then the worker.
Commands trial_commands(const TrialSpec& spec, const std::string& tune_executable, const TrialFiles& files) {
  if (runs_in_python(spec.step.backend)) return python_trial_commands(tune_executable, files);
  return {{tune_executable, "trial", "--spec", files.spec, "--out", files.result}};
}

// Runs the commands in order within one timeout; stops at the first that fails or that wrote the result
// already (the batch dump reports bad data that way). The outcome's wall time covers all that ran.
ChildOutcome run_commands(const Commands& commands, const fs::path& log, const fs::path& result, double timeout) {
  ChildOutcome outcome;
  double spent = 0;
  for (const auto& argv : commands) {
    outcome = run_child(argv, log.string(), timeout - spent);
    spent += outcome.wall_seconds;
    outcome.wall_seconds = spent;
    if (outcome.timed_out || outcome.signaled || outcome.exit_code != 0 || fs::exists(result)) break;
  }
  return outcome;
}

TrialResult result_without_file(const ChildOutcome& outcome, const fs::path& log) {
  const std::string tail = last_lines(log, 5);
  if (outcome.timed_out) return failed_result(TrialStatus::timeout, "run", describe_outcome(outcome));
  // A SIGKILL we did not send is, on Linux, the kernel's out-of-memory killer.
  if (outcome.signaled && outcome.signal == SIGKILL)
    return failed_result(TrialStatus::oom, "run", "killed by SIGKILL (out-of-memory killer)\n" + tail);
  return failed_result(TrialStatus::crashed, "run", describe_outcome(outcome) + "\n" + tail);
}

// The child's result file, or what its end says when it wrote none (or a timeout cut it short).
TrialResult collect_result(const ChildOutcome& outcome, const fs::path& result_path, const fs::path& log_path) {
  if (outcome.timed_out || !fs::exists(result_path)) return result_without_file(outcome, log_path);
  try {
    return nlohmann::json::parse(std::ifstream(result_path)).get<TrialResult>();
  } catch (const std::exception& e) {
    return failed_result(TrialStatus::crashed, "result", std::string("unreadable result.json: ") + e.what());
  }
}

}  // namespace

TrialResult run_trial_isolated(const TrialSpec& spec, const std::string& tune_executable, const std::string& trial_dir) {
  const fs::path dir(trial_dir);
  fs::create_directories(dir);
  const fs::path spec_path = dir / "spec.json", result_path = dir / "result.json", log_path = dir / "log.txt";
  std::ofstream(spec_path) << nlohmann::json(spec).dump(2) << "\n";
  fs::remove(result_path);
  const fs::path batches_path = dir / "batches.pt";
  Commands commands;
  try {
    write_reproducer(dir, trial_commands(spec, tune_executable, {"spec.json", "batches.pt", "result.json"}));
    commands = trial_commands(spec, tune_executable, {spec_path.string(), batches_path.string(), result_path.string()});
  } catch (const std::runtime_error& e) {  // no python or no worker script: this backend cannot run here
    const TrialResult result = failed_result(TrialStatus::compile_error, "python", e.what());
    std::ofstream(result_path) << nlohmann::json(result).dump(2) << "\n";
    return result;
  }
  const ChildOutcome outcome = run_commands(commands, log_path, result_path, spec.timeout_seconds);
  fs::remove(batches_path);  // command.sh writes them again; a search would otherwise keep one set per trial
  TrialResult result = collect_result(outcome, result_path, log_path);
  result.wall_seconds = outcome.wall_seconds;
  std::ofstream(result_path) << nlohmann::json(result).dump(2) << "\n";
  return result;
}

}  // namespace tune
