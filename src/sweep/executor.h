// Where a sweep's studies run, behind one interface: local (one study after another, here) and slurm (a job
// array, one task per study). The coordinator (sweep_coordinator.h) decides what to submit; executors only run.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "sweep/sweep_plan.h"
#include "sweep/sweep_state.h"

namespace tune {

class Executor {
 public:
  virtual ~Executor() = default;
  // Starts these (pending) studies: each record's attempts, job and phase are set (queued for a scheduler; done
  // or failed, with the reason, for an executor that runs them before returning).
  virtual void submit(const std::vector<PlannedStudy>& studies, SweepState& state) = 0;
  // Reads the scheduler's view of every queued or running study into its record: running (started_at set),
  // done, or failed with the scheduler's state, exit code and reason.
  virtual void poll(SweepState& state) = 0;
  // Stops every queued or running study; its record becomes cancelled.
  virtual void cancel(SweepState& state) = 0;
  // Whether submit runs the studies before it returns (the coordinator then hands it one at a time, saving the
  // state and merging between them).
  virtual bool runs_in_place() const { return false; }
};

// The executor the sweep file names; `tune_executable` is what each study's script runs.
std::unique_ptr<Executor> make_executor(const SweepSpec& spec, const std::string& tune_executable);

}  // namespace tune
