// Order-statistic confidence interval of the median: no normality assumption, since step times are
// skewed (a slow step from a page fault or a GC-like allocator flush is common, a fast outlier is not).
#include "trial/step_statistics.h"

#include <algorithm>
#include <cmath>

#include "stats/statistics.h"

namespace tune {
namespace {

// P(X <= k) for X ~ Binomial(n, 1/2), summed in log space so n in the thousands stays exact enough.
double binomial_half_cdf(int n, int k) {
  double total = 0;
  for (int i = 0; i <= k; ++i)
    total += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  return total;
}

// Largest 0-based j with P(X <= j) <= 2.5%: then [x_(j), x_(n-1-j)] covers the median with probability
// 1 - 2 P(X <= j) >= 95%. -1 when no such j exists (n < 6).
int lower_order_index(int n) {
  int j = -1;
  while (j + 1 < n / 2 && binomial_half_cdf(n, j + 1) <= 0.025) ++j;
  return j;
}

}  // namespace

StepStatistics step_statistics(const std::vector<double>& step_times) {
  StepStatistics s;
  s.samples = static_cast<int>(step_times.size());
  if (step_times.empty()) return s;
  auto sorted = step_times;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.median = median_of_sorted(sorted);
  const int j = lower_order_index(static_cast<int>(n));
  s.has_ci = j >= 0;
  s.ci_low = s.has_ci ? sorted[j] : sorted.front();
  s.ci_high = s.has_ci ? sorted[n - 1 - j] : sorted.back();
  s.cv = coefficient_of_variation(sorted);
  return s;
}

bool median_ci_within(const StepStatistics& stats, double relative_halfwidth) {
  if (!stats.has_ci || stats.median <= 0) return false;
  return stats.ci_low >= stats.median * (1 - relative_halfwidth) &&
         stats.ci_high <= stats.median * (1 + relative_halfwidth);
}

}  // namespace tune
