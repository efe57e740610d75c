// Tests for the regression statistics: the exact Mann-Whitney distribution against brute force, the
// Hodges-Lehmann shift and Moses interval, and the verdict's false-positive and detection rates on seeded samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "stats/shift_test.h"
#include "stats/statistics.h"
#include "test_helpers.h"

namespace tune {
namespace {

// P(U <= u) by enumerating which of the n + m ranks belong to the reference sample.
double brute_force_cdf(int n, int m, double u) {
  std::vector<bool> is_reference(n + m, false);
  std::fill(is_reference.begin(), is_reference.begin() + n, true);
  std::sort(is_reference.begin(), is_reference.end());
  int below = 0, total = 0;
  do {
    int references_seen = 0, count = 0;
    for (bool r : is_reference) {
      if (r) ++references_seen;
      else count += references_seen;  // a current value above every reference value ranked below it
    }
    below += count <= u;
    ++total;
  } while (std::next_permutation(is_reference.begin(), is_reference.end()));
  return static_cast<double>(below) / total;
}

// `count` log-normal values around log(center), log-sd `noise`: the log of a noisy positive metric.
std::vector<double> log_samples(std::mt19937& rng, int count, double center, double noise) {
  std::normal_distribution<double> dist(std::log(center), noise);
  std::vector<double> xs(count);
  for (auto& x : xs) x = dist(rng);
  return xs;
}

// Share of seeds whose verdict is `verdict` when current's centre is `ratio` times the reference's.
double verdict_rate(double ratio, double noise, int repeats, ShiftVerdict verdict, int seeds) {
  int hits = 0;
  for (int seed = 0; seed < seeds; ++seed) {
    std::mt19937 rng(seed);
    const auto reference = log_samples(rng, repeats, 1.0, noise);
    const auto current = log_samples(rng, repeats, ratio, noise);
    hits += judge_shift(estimate_shift(reference, current, 0.01), 0.05) == verdict;
  }
  return static_cast<double>(hits) / seeds;
}

TEST(ShiftTest, ExactDistributionMatchesBruteForce) {
  for (auto [n, m] : {std::pair{2, 2}, {3, 5}, {4, 4}, {5, 3}, {6, 7}})
    for (double u = -1; u <= n * m + 1; u += 1)
      EXPECT_NEAR(mann_whitney_cdf(n, m, u), brute_force_cdf(n, m, u), 1e-12) << n << "x" << m << " u=" << u;
}

TEST(ShiftTest, ExactDistributionIsSymmetricForLargeSamples) {
  // 40 x 40: C(80, 40) ~ 1e23 arrangements, no cancellation trouble in the product formula.
  const int n = 40, m = 40;
  for (double u : {100.0, 500.0, 799.0})
    EXPECT_NEAR(mann_whitney_cdf(n, m, u), 1 - mann_whitney_cdf(n, m, n * m - u - 1), 1e-9) << u;
  EXPECT_NEAR(mann_whitney_cdf(n, m, n * m), 1.0, 1e-12);
}

TEST(ShiftTest, PureShiftIsEstimatedExactly) {
  const std::vector<double> reference{1.0, 1.3, 0.7, 1.1, 0.9, 1.6, 0.8, 1.2};
  std::vector<double> current;
  for (double r : reference) current.push_back(r - 0.25);
  const ShiftEstimate e = estimate_shift(reference, current, 0.05);
  EXPECT_NEAR(e.shift, -0.25, 1e-12);
  EXPECT_LE(e.ci_low, -0.25);
  EXPECT_GE(e.ci_high, -0.25);
  EXPECT_EQ(e.reference_count, 8);
}

TEST(ShiftTest, SeparatedSamplesAreSignificantAndTheIntervalExcludesZero) {
  const std::vector<double> reference{1.00, 1.01, 0.99, 1.02, 0.98, 1.00};
  const std::vector<double> current{0.90, 0.91, 0.89, 0.92, 0.88, 0.90};
  const ShiftEstimate e = estimate_shift(reference, current, 0.05);
  EXPECT_NEAR(e.p_value, 2.0 / 924, 1e-12);  // every current below every reference: 2 / C(12, 6)
  EXPECT_LT(e.ci_high, 0);
  EXPECT_EQ(judge_shift(e, 0.05), ShiftVerdict::worse);
  EXPECT_EQ(judge_shift(estimate_shift(current, reference, 0.05), 0.05), ShiftVerdict::better);
}

TEST(ShiftTest, TooFewSamplesAreNeverSignificant) {
  // 2 x 2: the most extreme arrangement has probability 1/6 > 2.5%.
  const ShiftEstimate e = estimate_shift({1.0, 1.1}, {0.1, 0.2}, 0.05);
  EXPECT_GT(e.p_value, 0.05);
  EXPECT_LE(e.ci_low, e.shift);
  EXPECT_EQ(judge_shift(e, 0.05), ShiftVerdict::same);
}

TEST(ShiftTest, SignificantButSmallChangeIsNotARegression) {
  std::mt19937 rng(3);
  const auto reference = log_samples(rng, 12, 1.0, 0.002);
  const auto current = log_samples(rng, 12, 0.98, 0.002);  // 2% slower, measured very precisely
  const ShiftEstimate e = estimate_shift(reference, current, 0.05);
  EXPECT_LT(e.ci_high, 0);
  EXPECT_EQ(judge_shift(e, 0.05), ShiftVerdict::same);
}

TEST(ShiftTest, OneOutlierDoesNotMakeARegression) {
  std::mt19937 rng(5);
  const auto reference = log_samples(rng, 8, 1.0, 0.02);
  auto current = log_samples(rng, 8, 1.0, 0.02);
  current[3] = std::log(0.4);  // one trial ran beside a compiler job
  EXPECT_EQ(judge_shift(estimate_shift(reference, current, 0.05), 0.05), ShiftVerdict::same);
}

TEST(ShiftTest, IntervalCoversTheTrueShiftAtItsLevel) {
  int covered = 0;
  const int seeds = 1000;
  for (int seed = 0; seed < seeds; ++seed) {
    std::mt19937 rng(seed);
    const auto e = estimate_shift(log_samples(rng, 8, 1.0, 0.05), log_samples(rng, 8, 0.9, 0.05), 0.05);
    covered += e.ci_low <= std::log(0.9) && std::log(0.9) <= e.ci_high;
  }
  EXPECT_GE(covered, 0.95 * seeds - 15);  // binomial slack at 1000 draws
}

// The CI setting (configs/ci.yaml: 8 repeats, 5% minimum effect, alpha 0.01) against a per-repeat noise of
// 3% of the speedup (a quiet runner): reruns of the same code (no change) must almost never be flagged,
// a 10% slowdown almost always; with 10% noise (beside parallel builds) false alarms stay rare.
TEST(ShiftTest, FalsePositiveRateOnSameDistributionIsBelowHalfAPercent) {
  const double rate = verdict_rate(1.0, 0.03, 8, ShiftVerdict::worse, 4000);
  std::printf("false-positive rate, same distribution (noise 3%%, 8 repeats): %.4f\n", rate);
  EXPECT_LE(rate, 0.005);
}

TEST(ShiftTest, FalsePositiveRateUnderHeavyNoiseStaysBelowOnePercent) {
  const double rate = verdict_rate(1.0, 0.10, 8, ShiftVerdict::worse, 4000);
  std::printf("false-positive rate, same distribution (noise 10%%, 8 repeats): %.4f\n", rate);
  EXPECT_LE(rate, 0.01);
}

TEST(ShiftTest, TenPercentSlowdownIsDetected) {
  const double rate = verdict_rate(1 / 1.10, 0.03, 8, ShiftVerdict::worse, 2000);
  std::printf("detection rate, 10%% slower step (speedup x0.909, noise 3%%, 8 repeats): %.4f\n", rate);
  EXPECT_GE(rate, 0.95);
}

TEST(ShiftTest, BadInputIsAClearError) {
  EXPECT_NE(testing::error_of([] { estimate_shift({}, {1.0}, 0.05); }).find("reference sample is empty"),
            std::string::npos);
  EXPECT_NE(testing::error_of([] { estimate_shift({1.0}, {1.0}, 1.5); }).find("1.5"), std::string::npos);
}

}  // namespace
}  // namespace tune

TEST(RangeOverMean, IsHighestLessLowestOverTheMeanAndNoneWithoutASpread) {
  using tune::range_over_mean;
  EXPECT_NEAR(*range_over_mean({5.25, 5.0}), 0.25 / 5.125, 1e-12);  // the seed check's two seeds
  EXPECT_NEAR(*range_over_mean({3.0, 1.0, 2.0}), 1.0, 1e-12);       // (3 - 1) / 2, in any order
  EXPECT_FALSE(range_over_mean({4.0}));
  EXPECT_FALSE(range_over_mean({}));
  EXPECT_FALSE(range_over_mean({1.0, -1.0}));  // a mean <= 0 has no share
}

TEST(KendallTau, CountsConcordantPairsWithTies) {
  using tune::kendall_tau;
  EXPECT_DOUBLE_EQ(kendall_tau({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(kendall_tau({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // One swapped pair of six: (5 - 1) / 6.
  EXPECT_NEAR(kendall_tau({1, 2, 3, 4}, {1, 3, 2, 4}), 4.0 / 6, 1e-12);
  // Tau-b with a tie on each side: 4 concordant pairs over sqrt(5 x 5) untied pairs.
  EXPECT_NEAR(kendall_tau({1, 2, 2, 3}, {1, 2, 3, 3}), 0.8, 1e-12);
  EXPECT_DOUBLE_EQ(kendall_tau({1, 1}, {1, 2}), 0.0);
}
