// Steady-state step-time statistics: median, a distribution-free 95% confidence interval of the
// median (order statistics), coefficient of variation, and the stopping rule for timing steps.
#pragma once
#include <vector>

namespace tune {

struct StepStatistics {
  int samples = 0;
  double median = 0;
  double ci_low = 0;    // 95% CI of the median; equal to min/max while too few samples for one
  double ci_high = 0;
  bool has_ci = false;  // at least 6 samples: the smallest n whose extreme order statistics reach 95%
  double cv = 0;        // sample standard deviation over the mean
};

// Statistics of step times in seconds (any order). Empty input gives all zeros.
StepStatistics step_statistics(const std::vector<double>& step_times);

// True when the median's 95% CI lies within +-relative_halfwidth of the median (e.g. 0.02 for +-2%).
bool median_ci_within(const StepStatistics& stats, double relative_halfwidth);

}  // namespace tune
