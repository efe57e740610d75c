// Trial-time prediction for the budget: fixed part + compile part + steps x step time, each from what the
// search measured so far, the step time at an unmeasured batch from a line fitted to the measured ones.
#include "engine/trial_time_predictor.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "stats/statistics.h"
#include "trial/measurement.h"

namespace tune {

void TrialTimePredictor::observe(const TrialSpec& spec, const TrialResult& result) {
  if (!result.ok() || result.step_time_median <= 0) return;
  // The warm-up's time beyond K steady steps is paid again by every trial of this backend (jit's profiling
  // runs take seconds there); a warm-up faster than steady steps is noise, not a saving to count on.
  const double warmup_excess = result.first_steps_seconds - spec.measure.warmup_steps * result.step_time_median;
  const double compile = result.compile_seconds + std::max(0.0, warmup_excess);
  if (result.compile_cache == "warm") warm_compile_[spec.batch_size] = compile;  // any purpose: rates compile too
  if (spec.purpose != TrialPurpose::throughput) return;
  const auto known = speed_.find(spec.batch_size);
  // A warm repeat keeps the shape's first (cold) compile as the one a new shape pays.
  const double cold = known != speed_.end() && result.compile_cache == "warm" ? known->second.compile_seconds : compile;
  speed_[spec.batch_size] = {result.step_time_median, cold};
  steady_counts_.push_back(static_cast<double>(result.step_times.size()));
}

void TrialTimePredictor::observe_run(const TrialSpec& spec, const TrialResult& result) {
  last_wall_ = result.wall_seconds;
  if (result.status == TrialStatus::timeout)
    timed_out_[spec.batch_size] = std::max(timed_out_[spec.batch_size], result.wall_seconds);
  if (!result.ok()) return;
  const double steps = result.first_steps_seconds + std::accumulate(result.step_times.begin(), result.step_times.end(), 0.0);
  fixed_seconds_.push_back(std::max(0.0, result.wall_seconds - result.compile_seconds - steps));
}

double TrialTimePredictor::predict(const TrialSpec& spec) const {
  double predicted = last_wall_;
  if (!speed_.empty()) {
    const double step = step_seconds(spec.batch_size);
    const double steps = spec.purpose == TrialPurpose::throughput ? throughput_steps(spec, step) : total_steps(spec);
    predicted = fixed_seconds() + compile_part(spec.batch_size) + steps * step;
  }
  // A timeout at this batch or a smaller one: the trial may well run into the limit again.
  for (const auto& [batch, wall] : timed_out_)
    if (batch <= spec.batch_size) predicted = std::max(predicted, wall);
  return predicted;
}

double TrialTimePredictor::step_seconds(int batch_size) const {
  if (speed_.empty()) return 0;
  const auto measured = speed_.find(batch_size);
  return measured != speed_.end() ? measured->second.step_seconds : fitted_step_seconds(batch_size);
}

// The line (or, from one batch, the half-per-step rule), held to what the measured batches bound: a larger batch
// takes no less per step, a smaller one no less per sample (which also keeps the line from going below 0).
double TrialTimePredictor::fitted_step_seconds(int batch_size) const {
  const double x = batch_size;
  const auto& [b0, s0] = *speed_.begin();
  double estimate = s0.step_seconds * (1 + x / b0) / 2;
  if (speed_.size() > 1) {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [b, s] : speed_) {
      n += 1;
      sx += b;
      sy += s.step_seconds;
      sxx += double(b) * b;
      sxy += b * s.step_seconds;
    }
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);  // distinct batches: the denominator is > 0
    estimate = (sy - slope * sx) / n + slope * x;
  }
  for (const auto& [b, s] : speed_)
    estimate = std::max(estimate, b < batch_size ? s.step_seconds : s.step_seconds * x / b);
  return estimate;
}

// The compile part measured at the batch nearest on a log scale: compile and warm-up change little with the
// batch, and the ramp's neighbours are its closest measure.
double TrialTimePredictor::compile_seconds_near(int batch_size) const {
  std::map<int, double> compile;
  for (const auto& [b, s] : speed_) compile[b] = s.compile_seconds;
  return nearest_on_log_scale(compile, batch_size);
}

double TrialTimePredictor::nearest_on_log_scale(const std::map<int, double>& by_batch, int batch_size) {
  double best_distance = INFINITY, seconds = 0;
  for (const auto& [b, value] : by_batch) {
    const double distance = std::abs(std::log(double(b) / batch_size));
    if (distance > best_distance) continue;  // ascending batches: a tie goes to the larger
    best_distance = distance;
    seconds = value;
  }
  return seconds;
}

// A shape this search compiled before compiles warm from the study's cache (engine/study_trials.h): once a warm
// compile was seen, the one nearest this batch; a new shape, or none seen yet, the cold one (a rate trial at the
// ramp's batch had been expected to take a cold compile's minutes and the budget refused it).
double TrialTimePredictor::compile_part(int batch_size) const {
  if (!speed_.count(batch_size) || warm_compile_.empty()) return compile_seconds_near(batch_size);
  return nearest_on_log_scale(warm_compile_, batch_size);
}

// K warm-up steps plus the steady-state steps the stopping rule is expected to take: as many as the throughput
// trials so far took (a tight CI usually stops timing before the cap), within the step cap and the time cap.
int TrialTimePredictor::throughput_steps(const TrialSpec& spec, double step) const {
  const MeasureSettings& m = spec.measure;
  double cap = total_steps(spec) - m.warmup_steps;
  if (step > 0) cap = std::min(cap, std::max<double>(m.min_measure_steps, std::ceil(m.measure_seconds / step)));
  const double observed = steady_counts_.empty() ? cap : std::ceil(median(steady_counts_));
  return m.warmup_steps + static_cast<int>(std::min(observed, cap));
}

double TrialTimePredictor::fixed_seconds() const {
  return fixed_seconds_.empty() ? last_wall_ : median(fixed_seconds_);
}

}  // namespace tune
