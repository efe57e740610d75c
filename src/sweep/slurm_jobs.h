// Slurm's view of array tasks, read from its own commands: sacct where accounting is on, else scontrol (which
// keeps a finished job for MinJobAge). Parsing is apart from running, so it is tested on recorded output.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace tune {

// Seconds a Slurm command (sbatch, sacct, scontrol) may take before the sweep gives up on it.
constexpr double kSlurmCommandTimeout = 60;

struct SlurmTaskState {
  std::string state;      // Slurm's job state: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
  std::string exit_code;  // "1:0" (exit code : signal)
  std::string reason;     // Slurm's reason, e.g. NonZeroExitCode, or "None"
};

// "JOBID_TASK" -> state, from `sacct -n -P -X --format=JobID,State,ExitCode,Reason` output. A pending range
// ("12_[3-5%2]") gives each of its tasks.
std::map<std::string, SlurmTaskState> parse_sacct(const std::string& output);

// The same from `scontrol show job -o` output (one line per task; a pending range as ArrayTaskId=3-5).
std::map<std::string, SlurmTaskState> parse_scontrol(const std::string& output);

// Task ids of an array range: "3-5,7" or "[3-5%2]" -> 3 4 5 (7).
std::vector<int> expand_task_range(std::string range);

// The state of these array jobs' tasks, from sacct, or scontrol when sacct cannot answer (accounting off).
// A job Slurm no longer knows has no entries. Throws std::runtime_error when neither command answers.
std::map<std::string, SlurmTaskState> query_slurm_tasks(const std::vector<std::string>& array_job_ids);

}  // namespace tune
