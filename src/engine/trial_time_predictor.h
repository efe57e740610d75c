// What the budget expects a new trial to take, from the trials of the same search so far: the one
// prediction every stage checks against the time left.
#pragma once
#include <map>
#include <vector>

#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// A trial's wall time = fixed part + compile part + steps x step time, each learnt from what the search measured:
//  - fixed part: the median over the successful runs of wall - compile - warm-up steps - steady steps (process
//    start, model build, data), which every trial pays alike; the last run's wall time before one succeeded.
//  - compile part: compile + the warm-up's excess over K steady steps (jit's profiling runs, allocator and
//    library warm-up; never below 0), as measured at the nearest batch (log scale; the larger on a tie): the
//    shape's first, cold compile; at a batch this search already ran, once any trial compiled warm from the
//    study's cache (Inductor's), the warm compile measured nearest.
//  - steps: a learning-rate trial runs total_steps(spec); a throughput trial K warm-up steps plus the median
//    steady-state count of the throughput trials so far (timing usually stops on a tight CI before the cap),
//    else the cap; never more than the step cap or the time cap (measure_seconds) allow.
//  - step time at a batch (step_seconds): measured there; else, from two or more measured batches, the least-squares
//    line of step time on batch, never below the largest step time measured at a smaller batch (a larger batch is
//    no faster per step) nor below a larger measured batch's per-sample time x batch (a smaller batch is no faster
//    per sample; this also keeps the line above 0 below the measured batches); from a single batch b0
//    with step t0, t0 x (1 + b/b0) / 2: a step is a per-step part (kernel launches, optimizer) plus a per-sample
//    part, and one point cannot split them, so half of each is assumed; a doubling then costs 1.5x, wrong by at
//    most -25% (all per-sample) or +50% (all per-step) on the steps alone, where 2x was wrong by up to +100%.
// A run that timed out at a batch bounds every trial at that batch or larger from below by its wall time. With no
// throughput trial that fit yet, the prediction is the last run's wall time (0 before any).
class TrialTimePredictor {
 public:
  // A trial the search knows (run now or reused): a throughput trial that fit gives its batch's step time, compile
  // part and steady-state step count; any trial that compiled warm, the warm compile part at its batch.
  void observe(const TrialSpec& spec, const TrialResult& result);
  // A trial run now: its wall time, and when it succeeded its fixed part. A failed trial's wall time (a timeout,
  // an out-of-memory kill) says nothing of that part; a timeout says the batch takes at least that long.
  void observe_run(const TrialSpec& spec, const TrialResult& result);
  // Seconds the trial is expected to take (the rule above).
  double predict(const TrialSpec& spec) const;
  // Seconds per step expected at this batch (the rule above); 0 while no throughput trial fit.
  double step_seconds(int batch_size) const;

 private:
  struct Speed {
    double step_seconds = 0;
    double compile_seconds = 0;  // compile + the warm-up's excess over K steady steps
  };
  double fitted_step_seconds(int batch_size) const;
  double compile_seconds_near(int batch_size) const;
  double compile_part(int batch_size) const;
  static double nearest_on_log_scale(const std::map<int, double>& by_batch, int batch_size);
  int throughput_steps(const TrialSpec& spec, double step) const;
  double fixed_seconds() const;

  std::map<int, Speed> speed_;          // by batch size: the throughput trials that fit
  std::vector<double> steady_counts_;   // each of those trials' steady-state step count
  std::vector<double> fixed_seconds_;   // each successful run's wall time less its compile and its steps
  std::map<int, double> timed_out_;     // by batch size: the longest wall time of a run that timed out there
  std::map<int, double> warm_compile_;  // by batch size: the latest compile part of a trial that compiled warm
  double last_wall_ = 0;                // the latest trial run now
};

}  // namespace tune
