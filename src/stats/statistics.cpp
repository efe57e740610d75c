// Median, mean and coefficient of variation: plain definitions, no weighting or interpolation, so the
// figures tune prints can be checked by hand.
#include "stats/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/check.h"

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

double geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double log_sum = 0;
  for (double v : values) {
    TUNE_CHECK(v > 0, "geometric_mean: a value not above 0");
    log_sum += std::log(v);
  }
  return std::exp(log_sum / static_cast<double>(values.size()));
}

double coefficient_of_variation(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  const double m = mean(xs);
  double sum_sq = 0;
  for (double x : xs) sum_sq += (x - m) * (x - m);
  return m > 0 ? std::sqrt(sum_sq / static_cast<double>(xs.size() - 1)) / m : 0;
}

std::optional<double> range_over_mean(const std::vector<double>& values) {
  if (values.size() < 2) return std::nullopt;
  const double m = mean(values);
  if (!(m > 0)) return std::nullopt;
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return (*high - *low) / m;
}

double kendall_tau(const std::vector<double>& a, const std::vector<double>& b) {
  TUNE_CHECK(a.size() == b.size(), "kendall_tau: lists of different lengths");
  double concordant = 0, discordant = 0, ties_a = 0, ties_b = 0;
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = i + 1; j < a.size(); ++j) {
      const double da = a[i] - a[j], db = b[i] - b[j];
      if (da == 0 && db == 0) continue;
      if (da == 0) ++ties_a;
      else if (db == 0) ++ties_b;
      else (da * db > 0 ? concordant : discordant) += 1;
    }
  const double n_a = concordant + discordant + ties_b, n_b = concordant + discordant + ties_a;
  if (n_a == 0 || n_b == 0) return 0;
  return (concordant - discordant) / std::sqrt(n_a * n_b);
}

}  // namespace tune
