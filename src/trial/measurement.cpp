// The measurement protocol's rules: step counts, the loss check, the warm-up's accounting, the stopping rule and
// the summary. Torch-free, so the in-process trial and the Python worker's trial share them, and tests run them.
#include "trial/measurement.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "trial/step_statistics.h"
#include "util/table_format.h"

namespace tune {

int total_steps(const TrialSpec& spec) {
  const MeasureSettings& m = spec.measure;
  switch (spec.purpose) {
    case TrialPurpose::learning_rate: return std::max(spec.train_steps, m.warmup_steps + 1);
    case TrialPurpose::paired: return m.warmup_steps + spec.paired.rounds * spec.paired.block_steps;
    case TrialPurpose::throughput: break;
  }
  return m.warmup_steps + m.max_measure_steps;
}

bool record_loss(TrialResult& r, double loss) {
  if (std::isfinite(loss)) {
    r.losses.push_back(loss);
    return true;
  }
  r.status = TrialStatus::diverged;
  r.error_stage = "step";
  r.error_message = "loss became " + std::to_string(loss) + " at step " + std::to_string(r.losses.size() + 1);
  return false;
}

void account_warmup(const StepBlock& warmup, TrialResult& r) {
  double compile = 0, total = 0;
  for (size_t i = 0; i < warmup.times.size(); ++i) {
    const double inside = i < warmup.compile_seconds.size() ? std::min(warmup.times[i], warmup.compile_seconds[i]) : 0;
    compile += inside;
    total += warmup.times[i];
    if (i == 0) r.first_step_seconds = std::max(0.0, warmup.times[0] - inside);
  }
  r.compile_seconds += compile;
  r.first_steps_seconds = std::max(0.0, total - compile);
  r.later_warmup_seconds = std::max(0.0, r.first_steps_seconds - r.first_step_seconds);
}

namespace {

// Why timing may stop now: the median's CI is tight, or the time cap is reached; empty to go on.
std::string steady_state_reached(const TrialSpec& spec, const TrialResult& r, double measured) {
  const MeasureSettings& m = spec.measure;
  if (static_cast<int>(r.step_times.size()) < m.min_measure_steps) return "";
  const StepStatistics stats = step_statistics(r.step_times);
  if (median_ci_within(stats, m.ci_halfwidth))
    return strf("median's 95%% CI within +-%.0f%% after %d steps", 100 * m.ci_halfwidth, stats.samples);
  if (measured >= m.measure_seconds)
    return strf("time cap %.0f s after %d steps (CI %.3f-%.3f s)", m.measure_seconds, stats.samples, stats.ci_low,
                stats.ci_high);
  return "";
}

}  // namespace

bool run_measured_steps(const TrialSpec& spec, StepRunner& runner, TrialResult& r) {
  const auto warmup = runner.run(spec.measure.warmup_steps);
  if (!warmup) return false;
  account_warmup(*warmup, r);
  const int steps = total_steps(spec);
  while (runner.done() < steps) {
    const auto block = runner.run(std::min(runner.block_steps(), steps - runner.done()));
    if (!block) return false;
    r.step_times.insert(r.step_times.end(), block->times.begin(), block->times.end());
    if (spec.purpose != TrialPurpose::throughput) continue;
    const double measured = std::accumulate(r.step_times.begin(), r.step_times.end(), 0.0);
    r.steady_state_stop = steady_state_reached(spec, r, measured);
    if (!r.steady_state_stop.empty()) return true;
  }
  r.steady_state_stop = strf("step cap: %d steps", static_cast<int>(r.step_times.size()));
  return true;
}

void summarise_steps(const TrialSpec& spec, TrialResult& r) {
  const StepStatistics stats = step_statistics(r.step_times);
  r.step_time_median = stats.median;
  r.step_time_ci_low = stats.ci_low;
  r.step_time_ci_high = stats.ci_high;
  r.step_time_cv = stats.cv;
  if (r.step_time_median > 0) {
    r.samples_per_second = spec.batch_size / r.step_time_median;
    r.tokens_per_second = r.samples_per_second * spec.seq_len;
  }
  r.compile_overhead_seconds =
      std::max(0.0, r.compile_seconds + r.first_steps_seconds - spec.measure.warmup_steps * r.step_time_median);
  if (!r.losses.empty()) r.score_loss = tail_mean_loss(r.losses);
  if (spec.purpose == TrialPurpose::learning_rate) check_late_divergence(r);
}

// A rate too high often blows up after a good start, without ever reaching NaN: the loss climbs back far above
// the lowest it reached. Far: more than 1 nat, and more than half of what it had gained from the first step.
// "Lowest" is over windows as long as the score's tail: at batch 1 one step's loss is one sample's, and the
// lowest single sample lies far below any mean (a batch-1 trial learning steadily read as diverged).
void check_late_divergence(TrialResult& r) {
  if (!r.ok() || r.losses.size() < 4) return;
  const double lowest = lowest_window_mean(r.losses), tail = tail_mean_loss(r.losses);
  const double rise = tail - lowest, gained = r.losses.front() - lowest;
  if (!(rise > std::max(1.0, 0.5 * gained))) return;
  r.status = TrialStatus::diverged;
  r.error_stage = "step";
  r.error_message = strf("the loss rose from its lowest mean over %zu steps %.3f to a tail mean of %.3f (first "
                         "step %.3f): diverged late", tail_window(r.losses.size()), lowest, tail, r.losses.front());
}

}  // namespace tune
