// Exact Mann-Whitney distribution from the Gaussian binomial coefficient, the Hodges-Lehmann shift and
// the Moses interval read off the sorted pairwise differences at the exact critical value.
// Rank-based on purpose: one trial disturbed by a co-tenant moves a rank, not the estimate.
#include "stats/shift_test.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "stats/statistics.h"

namespace tune {
namespace {

// Counts of U = 0..n*m over all C(n+m, n) arrangements: the coefficients of the Gaussian binomial
// [n+m choose n]_q = prod_{i=1..n} (1 - q^(m+i)) / (1 - q^i). Each factor keeps the polynomial exact
// and non-negative after its division, so doubles hold it without cancellation trouble.
std::vector<double> mann_whitney_counts(int n, int m) {
  const size_t degree = static_cast<size_t>(n) * static_cast<size_t>(m);
  std::vector<double> poly(degree + 1, 0.0);
  poly[0] = 1;
  for (int i = 1; i <= n; ++i) {
    const size_t up = static_cast<size_t>(m + i), down = static_cast<size_t>(i);
    for (size_t k = degree; k >= up; --k) poly[k] -= poly[k - up];  // times (1 - q^up)
    for (size_t k = down; k <= degree; ++k) poly[k] += poly[k - down];  // divided by (1 - q^down)
  }
  return poly;
}

// U: pairs with current > reference, ties counting half.
double u_statistic(const std::vector<double>& reference, const std::vector<double>& current) {
  double u = 0;
  for (double c : current)
    for (double r : reference) u += c > r ? 1.0 : (c == r ? 0.5 : 0.0);
  return u;
}

std::vector<double> pairwise_differences(const std::vector<double>& reference, const std::vector<double>& current) {
  std::vector<double> d;
  d.reserve(reference.size() * current.size());
  for (double c : current)
    for (double r : reference) d.push_back(c - r);
  std::sort(d.begin(), d.end());
  return d;
}

// Largest c with P(U <= c - 1) <= alpha / 2: the Moses interval is [D_(c), D_(N-c+1)] (1-based). 0 when
// even the most extreme U is likelier than alpha / 2 (too few samples for this coverage).
int critical_count(const std::vector<double>& counts, double alpha) {
  double total = 0;
  for (double c : counts) total += c;
  double cumulative = 0;
  int c = 0;
  while (c < static_cast<int>(counts.size()) && (cumulative + counts[c]) / total <= alpha / 2) cumulative += counts[c++];
  return c;
}

void check_inputs(const std::vector<double>& reference, const std::vector<double>& current, double alpha) {
  if (reference.empty() || current.empty())
    throw std::invalid_argument(std::string("shift estimate: the ") + (reference.empty() ? "reference" : "current") +
                                " sample is empty (expected at least one value)");
  if (!(alpha > 0 && alpha < 1))
    throw std::invalid_argument("shift estimate: significance level " + std::to_string(alpha) +
                                " is outside (0, 1)");
}

// P(U <= u) from the counts of each U value.
double cdf_of_counts(const std::vector<double>& counts, double u) {
  double total = 0, below = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    total += counts[k];
    if (static_cast<double>(k) <= u + 1e-9) below += counts[k];
  }
  return below / total;
}

}  // namespace

double mann_whitney_cdf(int n, int m, double u) { return cdf_of_counts(mann_whitney_counts(n, m), u); }

ShiftEstimate estimate_shift(const std::vector<double>& reference, const std::vector<double>& current, double alpha) {
  check_inputs(reference, current, alpha);
  ShiftEstimate e;
  e.reference_count = static_cast<int>(reference.size());
  e.current_count = static_cast<int>(current.size());
  const auto d = pairwise_differences(reference, current);
  e.shift = median_of_sorted(d);
  const auto counts = mann_whitney_counts(e.reference_count, e.current_count);
  const int c = critical_count(counts, alpha);
  e.ci_low = c > 0 ? d[c - 1] : d.front();
  e.ci_high = c > 0 ? d[d.size() - c] : d.back();
  // Ties make U a half-integer: round it towards the null's centre, which keeps the p-value conservative.
  const double u = u_statistic(reference, current), n_m = static_cast<double>(d.size());
  const double lower = cdf_of_counts(counts, std::ceil(u)), upper = cdf_of_counts(counts, std::ceil(n_m - u));
  e.p_value = std::min(1.0, 2 * std::min(lower, upper));
  e.significant = c > 0 && (e.ci_high < 0 || e.ci_low > 0);
  return e;
}

ShiftVerdict judge_shift(const ShiftEstimate& estimate, double min_effect) {
  if (estimate.significant && estimate.ci_high < 0 && estimate.shift <= std::log(1 - min_effect)) return ShiftVerdict::worse;
  if (estimate.significant && estimate.ci_low > 0 && estimate.shift >= std::log(1 + min_effect)) return ShiftVerdict::better;
  return ShiftVerdict::same;
}

const char* to_string(ShiftVerdict verdict) {
  switch (verdict) {
    case ShiftVerdict::worse: return "worse";
    case ShiftVerdict::better: return "better";
    case ShiftVerdict::same: break;
  }
  return "same";
}

}  // namespace tune
