// The paired verdict a row gives: the t-interval of the mean log ratio against a hand computation, the three
// verdicts and "unconfirmed", its false-finding rate on seeded equal configurations, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "stats/paired_ratio.h"
#include "test_helpers.h"

namespace tune {
namespace {

TEST(PairedRatio, IntervalIsTheTIntervalOfTheMeanLogRatio) {
  const std::vector<double> ratios{1.10, 1.20, 1.15, 1.12};
  double m = 0, squares = 0;
  for (double r : ratios) m += std::log(r) / 4;
  for (double r : ratios) squares += (std::log(r) - m) * (std::log(r) - m);
  const double half = 3.182446 * std::sqrt(squares / 3 / 4);  // t(3), 97.5th percentile
  const PairedRatio p = paired_ratio(ratios, 0.95);
  EXPECT_EQ(p.rounds, 4);
  EXPECT_NEAR(p.ratio, std::exp(m), 1e-12);
  EXPECT_NEAR(p.ci_low, std::exp(m - half), 1e-6);
  EXPECT_NEAR(p.ci_high, std::exp(m + half), 1e-6);
  EXPECT_EQ(p.verdict, PairedVerdict::faster);
}

TEST(PairedRatio, AnIntervalHoldingOneIsNoDifference) {
  EXPECT_EQ(paired_ratio({0.95, 1.08, 1.02}, 0.95).verdict, PairedVerdict::no_difference);
  EXPECT_EQ(paired_ratio({0.80, 0.82, 0.79}, 0.95).verdict, PairedVerdict::slower);
  // A large mean on two rounds that disagree is not a finding.
  EXPECT_EQ(paired_ratio({1.05, 1.60}, 0.95).verdict, PairedVerdict::no_difference);
}

TEST(PairedRatio, OneRoundIsUnconfirmed) {
  const PairedRatio one = paired_ratio({1.3}, 0.95);
  EXPECT_EQ(one.verdict, PairedVerdict::unconfirmed);
  EXPECT_DOUBLE_EQ(one.ratio, 1.3);
  EXPECT_EQ(paired_ratio({}, 0.95).verdict, PairedVerdict::unconfirmed);
  EXPECT_EQ(to_string(PairedVerdict::no_difference), "no difference");
}

// Equal configurations with 10% round-to-round noise: a finding (faster or slower) in about 5% of studies.
TEST(PairedRatio, EqualConfigurationsGiveAFindingAboutFivePercentOfTheTime) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0, 0.1);
  int findings = 0;
  const int studies = 4000;
  for (int i = 0; i < studies; ++i) {
    std::vector<double> ratios;
    for (int r = 0; r < 4; ++r) ratios.push_back(std::exp(noise(rng)));
    findings += paired_ratio(ratios, 0.95).verdict != PairedVerdict::no_difference;
  }
  EXPECT_GT(findings, studies * 0.035);
  EXPECT_LT(findings, studies * 0.065);
}

TEST(PairedRatio, BadInputIsAUserErrorQuotingIt) {
  EXPECT_NE(testing::error_of([] { paired_ratio({1.0, -2.0}, 0.95); }).find("ratio -2 is not"), std::string::npos);
  EXPECT_NE(testing::error_of([] { paired_ratio({1.0, 1.1}, 1.5); }).find("confidence 1.5"), std::string::npos);
}

}  // namespace
}  // namespace tune
