// Tests for the steady-state statistics: the order-statistic CI of the median and the stopping rule.
// Expected order indices come from the binomial table for the median (n = 6, 10, 20).
#include <gtest/gtest.h>

#include <random>

#include "trial/measurement.h"
#include "trial/step_statistics.h"
#include "trial/trial_result.h"

namespace tune {
namespace {

std::vector<double> one_to(int n) {
  std::vector<double> xs;
  for (int i = n; i >= 1; --i) xs.push_back(i);  // reversed: the function must sort
  return xs;
}

TEST(StepStatistics, NoConfidenceIntervalBelowSixSamples) {
  const auto s = step_statistics(one_to(5));
  EXPECT_FALSE(s.has_ci);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.ci_low, 1);
  EXPECT_DOUBLE_EQ(s.ci_high, 5);
  EXPECT_FALSE(median_ci_within(s, 10.0));
}

TEST(StepStatistics, OrderStatisticsMatchTheBinomialTable) {
  // n=6: [x1, x6] (96.9%); n=10: [x2, x9] (97.9%); n=20: [x6, x15] (95.9%), 1-based.
  const auto six = step_statistics(one_to(6));
  EXPECT_TRUE(six.has_ci);
  EXPECT_DOUBLE_EQ(six.ci_low, 1);
  EXPECT_DOUBLE_EQ(six.ci_high, 6);
  EXPECT_DOUBLE_EQ(six.median, 3.5);
  const auto ten = step_statistics(one_to(10));
  EXPECT_DOUBLE_EQ(ten.ci_low, 2);
  EXPECT_DOUBLE_EQ(ten.ci_high, 9);
  const auto twenty = step_statistics(one_to(20));
  EXPECT_DOUBLE_EQ(twenty.ci_low, 6);
  EXPECT_DOUBLE_EQ(twenty.ci_high, 15);
}

TEST(StepStatistics, CoefficientOfVariationIsSampleStdOverMean) {
  const auto s = step_statistics({1.0, 2.0, 3.0});
  EXPECT_NEAR(s.cv, 1.0 / 2.0, 1e-12);  // std 1, mean 2
  EXPECT_DOUBLE_EQ(step_statistics({}).median, 0);
}

TEST(StepStatistics, StoppingRuleNeedsTightInterval) {
  std::vector<double> steady{1.00, 1.01, 0.99, 1.005, 0.995, 1.0, 1.002, 0.998};
  EXPECT_TRUE(median_ci_within(step_statistics(steady), 0.02));
  std::vector<double> noisy{1.0, 1.3, 0.8, 1.1, 0.9, 1.2, 0.85, 1.15};
  EXPECT_FALSE(median_ci_within(step_statistics(noisy), 0.02));
  EXPECT_TRUE(median_ci_within(step_statistics(noisy), 0.5));
}

// The interval's coverage is what it claims: over many seeded draws from a skewed distribution,
// the true median falls inside at least 95% of the time.
TEST(StepStatistics, CoverageOfTheTrueMedianIsAtLeast95Percent) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> dist(0.0, 0.5);  // true median exp(0) = 1
  int covered = 0;
  const int draws = 2000;
  for (int d = 0; d < draws; ++d) {
    std::vector<double> xs(12);
    for (auto& x : xs) x = dist(rng);
    const auto s = step_statistics(xs);
    covered += s.ci_low <= 1.0 && 1.0 <= s.ci_high;
  }
  EXPECT_GE(covered, static_cast<int>(0.95 * draws) - 20);  // binomial slack at 2000 draws
}

}  // namespace
}  // namespace tune

namespace tune {
namespace {

// A learning-rate trial's result with these losses, scored as the worker scores it.
TrialResult scored(const std::vector<double>& losses) {
  TrialResult r;
  r.status = TrialStatus::ok;
  r.losses = losses;
  r.score_loss = tail_mean_loss(losses);
  check_late_divergence(r);
  return r;
}

}  // namespace

// A rate that blows up after a good start is diverged; a batch-1 run learning steadily, its single-sample losses
// now and then far below the mean, is not (its lowest single step read as the minimum flagged it before).
TEST(LateDivergence, ARiseFromTheSmoothedMinimumNotFromOneLuckySample) {
  std::vector<double> blows_up, noisy;
  for (int i = 0; i < 200; ++i) blows_up.push_back(i < 100 ? 6.9 - 0.04 * i : 2.9 + 0.04 * (i - 100));
  for (int i = 0; i < 2048; ++i) noisy.push_back(i % 10 == 0 ? 1.9 : 6.9 - 1.5 * i / 2048.0);
  const TrialResult diverged = scored(blows_up);
  EXPECT_EQ(diverged.status, TrialStatus::diverged);
  EXPECT_NE(diverged.error_message.find("diverged late"), std::string::npos) << diverged.error_message;
  EXPECT_EQ(scored(noisy).status, TrialStatus::ok);
  EXPECT_NEAR(lowest_window_mean({5, 1, 1, 5, 5, 5, 5, 5}), 1.0, 1e-12);  // window 2 of 8 losses
}

}  // namespace tune
