// What the budget expects a new trial to take, from the trials of the same search so far: the one
// prediction every stage checks against the time left.
#pragma once
#include <map>
#include <vector>

#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

class TrialTimePredictor {
 public:
  // A trial the search knows (run now or reused): a throughput trial that fit gives its batch's step time.
  void observe(const TrialSpec& spec, const TrialResult& result);
  // A trial run now: its wall time, and when it succeeded the part of it that was neither compile nor steps
  // (process start, model build, data), which every trial pays. A failed trial's wall time (a timeout, an
  // out-of-memory kill) says nothing of that part.
  void observe_run(const TrialSpec& spec, const TrialResult& result);
  // Seconds the trial is expected to take. A learning-rate trial at a batch whose step time is known: the fixed
  // part (the median over the successful runs; the last run's wall time before one succeeded), the compile and
  // its steps at that step time. A throughput trial at a new size: twice the last run (the ramp doubles the
  // batch). Otherwise the last run's wall time.
  double predict(const TrialSpec& spec) const;

 private:
  struct Speed {
    double step_seconds = 0;
    double compile_seconds = 0;
  };
  std::map<int, Speed> speed_;  // by batch size: the throughput trials that fit
  double last_wall_ = 0;              // the latest trial run now
  std::vector<double> fixed_seconds_;  // each successful run's wall time less its compile and its steps
};

}  // namespace tune
