// Reads array task states from sacct, or scontrol where accounting is off: both outputs parsed into one map, so the
// executor never depends on which of the two answered.
#include "sweep/slurm_jobs.h"

#include <regex>
#include <sstream>
#include <stdexcept>

#include "util/join.h"
#include "util/process.h"

namespace tune {
namespace {

std::vector<std::string> split_fields(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.push_back("");
  return parts;
}

// "CANCELLED by 0" -> "CANCELLED".
std::string first_word(const std::string& text) { return text.substr(0, text.find(' ')); }

void add_tasks(std::map<std::string, SlurmTaskState>& out, const std::string& job, const std::string& tasks,
               const SlurmTaskState& state) {
  for (int task : expand_task_range(tasks)) out[job + "_" + std::to_string(task)] = state;
}

}  // namespace

std::vector<int> expand_task_range(std::string range) {
  if (!range.empty() && range.front() == '[') range = range.substr(1, range.find(']') - 1);
  range = range.substr(0, range.find('%'));  // "%2": at most 2 at once
  std::vector<int> tasks;
  for (const auto& part : split_fields(range, ',')) {
    if (part.empty()) continue;
    const auto dash = part.find('-');
    const int first = std::stoi(part.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
    for (int t = first; t <= last; ++t) tasks.push_back(t);
  }
  return tasks;
}

std::map<std::string, SlurmTaskState> parse_sacct(const std::string& output) {
  std::map<std::string, SlurmTaskState> out;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    const auto f = split_fields(line, '|');
    if (f.size() < 4) continue;
    const auto underscore = f[0].find('_');
    if (underscore == std::string::npos) continue;  // not an array task
    add_tasks(out, f[0].substr(0, underscore), f[0].substr(underscore + 1), {first_word(f[1]), f[2], f[3]});
  }
  return out;
}

std::map<std::string, SlurmTaskState> parse_scontrol(const std::string& output) {
  static const std::regex field(R"((\w+)=(\S*))");
  std::map<std::string, SlurmTaskState> out;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::map<std::string, std::string> f;
    for (std::sregex_iterator it(line.begin(), line.end(), field), end; it != end; ++it) f[(*it)[1]] = (*it)[2];
    if (!f.count("ArrayJobId") || !f.count("ArrayTaskId") || !f.count("JobState")) continue;
    add_tasks(out, f["ArrayJobId"], f["ArrayTaskId"], {f["JobState"], f["ExitCode"], f["Reason"]});
  }
  return out;
}

std::map<std::string, SlurmTaskState> query_slurm_tasks(const std::vector<std::string>& jobs) {
  if (jobs.empty()) return {};
  const CapturedRun sacct = run_capturing(
      {"sacct", "-n", "-P", "-X", "-j", join(jobs, ","), "--format=JobID,State,ExitCode,Reason"}, kSlurmCommandTimeout);
  // With accounting off, sacct fails or answers nothing (it says so on stderr): scontrol still knows the jobs.
  if (sacct.ok() && !sacct.out.empty()) return parse_sacct(sacct.out);
  std::map<std::string, SlurmTaskState> out;
  for (const auto& job : jobs) {
    const CapturedRun scontrol = run_capturing({"scontrol", "show", "job", "-o", job}, kSlurmCommandTimeout);
    if (scontrol.ok()) {
      for (auto& [task, state] : parse_scontrol(scontrol.out)) out[task] = state;
    } else if (scontrol.err.find("Invalid job id") == std::string::npos) {
      throw std::runtime_error("cannot read job " + job + " from Slurm: sacct: " + sacct.err + "; scontrol: " +
                               scontrol.err);
    }
  }
  return out;
}

}  // namespace tune
