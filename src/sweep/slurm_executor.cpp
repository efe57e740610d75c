// sbatch --array over a generated batch script that maps SLURM_ARRAY_TASK_ID to a study's script; exclusive
// nodes unless a partition gives each study its own CPUs. Resubmitting a study is a new one-task array.
#include "sweep/slurm_executor.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "sweep/slurm_jobs.h"
#include "util/join.h"
#include "util/process.h"

namespace tune {
namespace {

constexpr size_t kMaxArrayTasks = 1000;

std::string array_job_of(const std::string& job) { return job.substr(0, job.find('_')); }

void scancel(const std::set<std::string>& jobs) {
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), jobs.begin(), jobs.end());
  const CapturedRun run = run_capturing(argv, kSlurmCommandTimeout);
  if (!run.ok()) throw std::runtime_error("scancel failed (" + describe_outcome(run.outcome) + "): " + run.err);
}

}  // namespace

StudyPhase phase_of(const SlurmTaskState& task, std::string& reason) {
  static const std::set<std::string> waiting = {"PENDING", "REQUEUED", "REQUEUE_FED", "CONFIGURING", "SUSPENDED",
                                                "RESIZING", "SIGNALING"};
  static const std::set<std::string> held = {"launch_failed_requeued_held", "JobHeldAdmin", "JobHeldUser"};
  const std::string& state = task.state;
  const std::string exit_code = task.exit_code.empty() ? "?" : task.exit_code;
  if (waiting.count(state) && held.count(task.reason)) {
    reason = "held by Slurm: " + state + " (" + task.reason + ")";
    return StudyPhase::failed;
  }
  if (waiting.count(state)) return StudyPhase::queued;
  if (state == "RUNNING" || state == "COMPLETING" || state == "STAGE_OUT") return StudyPhase::running;
  if (state == "COMPLETED" && (task.exit_code.empty() || task.exit_code == "0:0")) return StudyPhase::done;
  reason = state + " (exit " + exit_code + (state == "OUT_OF_MEMORY" ? ", OOM killed" : "") +
           (task.reason.empty() || task.reason == "None" ? "" : ", " + task.reason) + ")";
  return StudyPhase::failed;
}

SlurmExecutor::SlurmExecutor(SweepSpec spec, std::string tune_executable)
    : spec_(std::move(spec)), tune_(std::move(tune_executable)) {}

// sbatch keeps a copy of the script it was given, so the task -> study map written into it holds for that job
// whatever later submissions write.
std::string SlurmExecutor::write_batch_script(const SlurmPartition& p, const std::vector<std::string>& study_ids) const {
  namespace fs = std::filesystem;
  const std::string dir = spec_.state_dir + "/slurm", logs = spec_.state_dir + "/logs";
  fs::create_directories(dir), fs::create_directories(logs);
  const std::string path = dir + "/" + p.name + ".sbatch";
  std::ofstream out(path, std::ios::trunc);
  out << "#!/bin/bash\n# tune sweep " << spec_.name << ", partition " << p.name << ": each array task runs the study "
      << "the case below names (written by tune sweep)\n#SBATCH --job-name=tune-" << spec_.name << "\n#SBATCH --partition="
      << p.name << "\n#SBATCH --output=" << logs << "/%x-%A_%a.out\n";
  // Timed trials never share a CPU set: the node, or the CPUs Slurm binds to this task alone.
  out << (p.exclusive ? "#SBATCH --exclusive\n" : "#SBATCH --cpus-per-task=" + std::to_string(p.cpus_per_task) + "\n");
  for (const auto& option : p.sbatch) out << "#SBATCH " << option << "\n";
  out << "case \"$SLURM_ARRAY_TASK_ID\" in\n";
  for (size_t t = 0; t < study_ids.size(); ++t) out << "  " << t << ") study=" << study_ids[t] << " ;;\n";
  out << "  *) echo \"tune sweep: array task $SLURM_ARRAY_TASK_ID is no study of this job\" >&2; exit 2 ;;\nesac\n"
      << "exec /bin/bash '" << spec_.state_dir << "/tasks/'\"$study\".sh\n";
  if (!out) throw std::runtime_error("cannot write the batch script '" + path + "'");
  return path;
}

std::string SlurmExecutor::submit_array(const SlurmPartition& p, const std::vector<std::string>& study_ids) const {
  const std::string script = write_batch_script(p, study_ids);
  const std::string array = "--array=0-" + std::to_string(study_ids.size() - 1);
  const CapturedRun run = run_capturing({"sbatch", "--parsable", array, script}, kSlurmCommandTimeout);
  const std::string job = run.out.substr(0, run.out.find_first_of(";\n"));  // "1234" or "1234;cluster"
  if (!run.ok() || job.empty() || job.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("sbatch refused the array for partition " + p.name + " (" + describe_outcome(run.outcome) +
                             "): " + run.err + run.out);
  return job;
}

// One array per partition, in chunks that Slurm's default MaxArraySize (1001) admits.
void SlurmExecutor::submit(const std::vector<PlannedStudy>& studies, SweepState& state) {
  for (const auto& partition : spec_.partitions) {
    std::vector<std::string> ids;
    for (const auto& s : studies)
      if (s.partition == partition.name) write_study_script(spec_, s, tune_), ids.push_back(s.id);
    for (size_t first = 0; first < ids.size(); first += kMaxArrayTasks) {
      const std::vector<std::string> chunk(ids.begin() + first, ids.begin() + std::min(ids.size(), first + kMaxArrayTasks));
      const std::string job = submit_array(partition, chunk);
      for (size_t t = 0; t < chunk.size(); ++t) {
        StudyRecord& r = state.record(chunk[t]);
        ++r.attempts;
        r.job = job + "_" + std::to_string(t);
        r.phase = StudyPhase::queued;
        r.started_at = 0;
      }
    }
  }
}

void SlurmExecutor::poll(SweepState& state) {
  std::set<std::string> jobs;
  for (const auto& r : state.studies)
    if (is_active(r.phase)) jobs.insert(array_job_of(r.job));
  const auto tasks = query_slurm_tasks({jobs.begin(), jobs.end()});
  std::set<std::string> known_jobs, held;
  for (const auto& [task, _] : tasks) known_jobs.insert(array_job_of(task));
  for (auto& r : state.studies) {
    if (!is_active(r.phase)) continue;
    const auto it = tasks.find(r.job);
    if (it == tasks.end()) {
      if (known_jobs.count(array_job_of(r.job))) continue;  // in a pending range Slurm did not list task by task
      r.phase = StudyPhase::failed;
      r.reason = "Slurm has no record of job " + r.job + " (purged after MinJobAge, or lost with the controller)";
      continue;
    }
    r.phase = phase_of(it->second, r.reason);
    if (r.phase == StudyPhase::failed && it->second.state == "PENDING") held.insert(r.job);
    if (r.phase == StudyPhase::running && r.started_at == 0) r.started_at = static_cast<double>(std::time(nullptr));
  }
  if (!held.empty()) scancel(held);  // a held task would run later beside its resubmission
}

void SlurmExecutor::cancel(SweepState& state) {
  std::set<std::string> jobs;
  for (auto& r : state.studies)
    if (is_active(r.phase)) jobs.insert(r.job), r.phase = StudyPhase::cancelled;
  if (!jobs.empty()) scancel(jobs);
}

}  // namespace tune
