// Break-even arithmetic: compiled faster pays off after overhead / saving-per-step steps;
// compiled slower is "not worth compiling"; job-length recommendations follow.
#include <gtest/gtest.h>

#include "engine/amortization.h"

using namespace tune;

TEST(Amortization, BreakEvenFromOverheadAndSaving) {
  // native 10 samples/s, compiled 20 samples/s at batch 10: a compiled step saves 1.0 - 0.5 = 0.5 s.
  const Amortization a = amortize(10, 20, 10, 30);
  EXPECT_TRUE(a.worth_compiling);
  EXPECT_DOUBLE_EQ(a.speedup, 2.0);
  EXPECT_DOUBLE_EQ(a.break_even_steps, 60);
  EXPECT_DOUBLE_EQ(a.break_even_seconds, 30 + 60 * 0.5);
  EXPECT_NE(recommend_for_job(a, 100).find("compile"), std::string::npos);
  EXPECT_NE(recommend_for_job(a, 10).find("stay native"), std::string::npos);
}

TEST(Amortization, SlowerCompiledIsNotWorthIt) {
  const Amortization a = amortize(10, 9, 8, 5);
  EXPECT_FALSE(a.worth_compiling);
  EXPECT_NEAR(a.speedup, 0.9, 1e-12);
  EXPECT_EQ(describe_break_even(a), "not worth compiling");
}
