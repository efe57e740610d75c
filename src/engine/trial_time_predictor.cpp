// Trial-time prediction for the budget: a step-time model where the batch's speed is measured, the last
// trial's wall time where it is not (doubled for the next size of a ramp).
#include "engine/trial_time_predictor.h"

#include <algorithm>
#include <numeric>

#include "stats/statistics.h"

namespace tune {

void TrialTimePredictor::observe(const TrialSpec& spec, const TrialResult& result) {
  if (spec.purpose == TrialPurpose::throughput && result.ok() && result.step_time_median > 0)
    speed_[spec.batch_size] = {result.step_time_median, result.compile_seconds};
}

void TrialTimePredictor::observe_run(const TrialSpec&, const TrialResult& result) {
  last_wall_ = result.wall_seconds;
  if (!result.ok()) return;
  const double steps = result.first_steps_seconds + std::accumulate(result.step_times.begin(), result.step_times.end(), 0.0);
  fixed_seconds_.push_back(std::max(0.0, result.wall_seconds - result.compile_seconds - steps));
}

double TrialTimePredictor::predict(const TrialSpec& spec) const {
  const auto speed = speed_.find(spec.batch_size);
  if (spec.purpose == TrialPurpose::learning_rate && speed != speed_.end()) {
    const double fixed = fixed_seconds_.empty() ? last_wall_ : median(fixed_seconds_);
    return fixed + speed->second.compile_seconds + spec.train_steps * speed->second.step_seconds;
  }
  return spec.purpose == TrialPurpose::throughput ? 2 * last_wall_ : last_wall_;
}

}  // namespace tune
