// Median, mean and coefficient of variation: plain definitions, no weighting or interpolation, so the
// figures tune prints can be checked by hand.
#include "stats/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tune {

double median_of_sorted(const std::vector<double>& xs) {
  const size_t n = xs.size();
  if (n == 0) return 0;
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return median_of_sorted(values);
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double coefficient_of_variation(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  const double m = mean(xs);
  double sum_sq = 0;
  for (double x : xs) sum_sq += (x - m) * (x - m);
  return m > 0 ? std::sqrt(sum_sq / static_cast<double>(xs.size() - 1)) / m : 0;
}

}  // namespace tune
