// Runs one trial in its own process(es) and turns whatever happened to it into a typed result:
// a result file if the child wrote one, else timeout, oom (killed by SIGKILL) or crashed.
#include "trial/trial_process.h"

#include <signal.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>

#include "util/json_numbers.h"
#include "util/process.h"
#include "util/stop_signals.h"

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

// `tune trial` on the spec, whatever the backend (a Python-worker backend's trial starts its worker itself).
std::vector<std::string> trial_command(const std::string& tune_executable, const std::string& spec,
                                       const std::string& result) {
  return {tune_executable, "trial", "--spec", spec, "--out", result};
}

void write_reproducer(const fs::path& dir, const std::vector<std::string>& argv) {
  std::ofstream cmd(dir / "command.sh");
  cmd << "#!/bin/sh\n# Reruns this trial by hand; the result lands in result.json.\ncd \"$(dirname \"$0\")\" &&";
  for (const auto& a : argv) cmd << " '" << a << "'";
  cmd << "\n";
  fs::permissions(dir / "command.sh", fs::perms::owner_exec, fs::perm_options::add);
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
    const auto json = nlohmann::json::parse(std::ifstream(result_path));
    check_json_numbers_fit(json, result_path.string());
    return json.get<TrialResult>();
  } catch (const std::exception& e) {
    return failed_result(TrialStatus::crashed, "result", std::string("unreadable result.json: ") + e.what());
  }
}

// A trial folder's file, written whole or refused: a full disk must stop the search, never become a result.
void write_whole(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.flush();
  if (!out) throw std::runtime_error("cannot write '" + path.string() + "': " + std::strerror(errno));
}

// Whether the file system holding `dir` has no room left: then a trial that failed failed for want of disk
// (its spec, log or result could not be written), which says nothing about the configuration.
bool file_system_full(const fs::path& dir) {
  std::error_code error;
  const fs::space_info space = fs::space(dir, error);
  return !error && space.available < 64 * 1024;
}

}  // namespace

TrialResult run_trial_isolated(const TrialSpec& spec, const std::string& tune_executable, const std::string& trial_dir) {
  const fs::path dir(trial_dir);
  fs::create_directories(dir);
  const fs::path spec_path = dir / "spec.json", result_path = dir / "result.json", log_path = dir / "log.txt";
  write_whole(spec_path, nlohmann::json(spec).dump(2) + "\n");
  fs::remove(result_path);
  write_reproducer(dir, trial_command(tune_executable, "spec.json", "result.json"));
  const ChildOutcome outcome = run_child(trial_command(tune_executable, spec_path.string(), result_path.string()),
                                         log_path.string(), spec.timeout_seconds);
  if (outcome.stopped) throw StopRequested{stop_signal()};  // its partial measurement is no result: not stored
  TrialResult result = collect_result(outcome, result_path, log_path);
  if (!result.ok() && file_system_full(dir))
    throw std::runtime_error("the file system holding '" + dir.string() + "' is full: the trial there failed for "
                             "want of disk, so its result is not recorded (free space, then rerun: finished trials "
                             "are reused)");
  result.wall_seconds = outcome.wall_seconds;
  write_whole(result_path, nlohmann::json(result).dump(2) + "\n");
  return result;
}

}  // namespace tune
