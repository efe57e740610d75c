// The coordinator of a sweep: submits what is pending, follows the executor's jobs, resubmits a failed study up to
// max_attempts, merges each finished study's database into the store, and writes the table when all have ended.
#pragma once
#include <ostream>

#include "sweep/executor.h"

namespace tune {

struct SweepCounts {
  int pending = 0, queued = 0, running = 0, done = 0, failed = 0, cancelled = 0;
  double eta_seconds = 0;  // from the budgets left: pending ones in full, running ones less their time so far
};

SweepCounts count_studies(const SweepState& state, const std::vector<PlannedStudy>& plan, double now);

// "3 pending, 1 queued, 2 running, 4 done, 0 failed; ETA ~12m (budgets left, 2 at once)".
std::string progress_line(const SweepCounts& counts);

// Runs the sweep to its end (or re-attaches to one a killed coordinator left): returns 0 when every study is done
// and merged, 1 when some failed max_attempts times or were cancelled. Holds STATE_DIR/coordinator.lock: a second coordinator of the
// same sweep is refused (std::runtime_error naming the lock). Progress and failures go to `out`.
int run_sweep(const SweepSpec& spec, Executor& executor, std::ostream& out);

// Prints each study's phase, attempts, job and last failure, as the executor sees them now (nothing is written).
void print_sweep_status(const SweepSpec& spec, Executor& executor, std::ostream& out);

// Cancels the sweep's queued and running jobs and marks the sweep cancelled (a later run resumes it).
void cancel_sweep(const SweepSpec& spec, Executor& executor, std::ostream& out);

}  // namespace tune
