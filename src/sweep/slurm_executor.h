// The Slurm executor: a job array per partition, one task per study, each task the study's plain tune script on
// the node it lands on; task states read back from Slurm (slurm_jobs.h), scancel to stop them.
#pragma once
#include <map>

#include "sweep/executor.h"
#include "sweep/slurm_jobs.h"

namespace tune {

class SlurmExecutor : public Executor {
 public:
  SlurmExecutor(SweepSpec spec, std::string tune_executable);
  void submit(const std::vector<PlannedStudy>& studies, SweepState& state) override;
  void poll(SweepState& state) override;
  void cancel(SweepState& state) override;

 private:
  // Array task i runs study_ids[i].
  std::string write_batch_script(const SlurmPartition& partition, const std::vector<std::string>& study_ids) const;
  std::string submit_array(const SlurmPartition& partition, const std::vector<std::string>& study_ids) const;

  SweepSpec spec_;
  std::string tune_;
};

// What a task's Slurm state means for its study: done (COMPLETED with exit 0), still queued or running, or failed
// with `reason` naming Slurm's state, exit code and reason ("OUT_OF_MEMORY (exit 0:125, OOM killed)"). A task
// Slurm holds (its launch failed, or an administrator held it) has failed too: it would wait for ever.
StudyPhase phase_of(const SlurmTaskState& task, std::string& reason);

}  // namespace tune
