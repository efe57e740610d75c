// Break-even arithmetic: compiled faster pays off after overhead / saving-per-step steps;
// compiled slower is "not worth compiling"; job-length recommendations follow.
#include <gtest/gtest.h>

#include "report/amortization.h"

using namespace tune;

TEST(Amortization, BreakEvenFromOverheadAndSaving) {
  // native 10 samples/s, compiled 20 samples/s at batch 10: a compiled step saves 1.0 - 0.5 = 0.5 s.
  const Amortization a = amortize(10, 20, 10, 30);
  EXPECT_TRUE(a.worth_compiling);
  EXPECT_DOUBLE_EQ(a.speedup, 2.0);
  EXPECT_DOUBLE_EQ(a.break_even_steps, 60);
  EXPECT_DOUBLE_EQ(a.break_even_seconds, 30 + 60 * 0.5);
  EXPECT_EQ(a.batch_size, 10);
  EXPECT_EQ(describe_break_even(a), "60 steps of batch 10 (1m 00s)");
  EXPECT_NE(recommend_for_job(a, 100, 10).find("compile"), std::string::npos);
  EXPECT_NE(recommend_for_job(a, 10, 10).find("stay native"), std::string::npos);
  // The job compared in samples: 40 steps of batch 20 pass a 60-step break-even at batch 10.
  EXPECT_EQ(recommend_for_job(a, 40, 20).rfind("compile", 0), 0u);
}

TEST(Amortization, NetOverheadCountsExtraShapesLessNativeWarmup) {
  // Compiled overhead 10 s, paid for the training shape and 2 more (last partial batch, evaluation); native
  // warm-up overhead 4 s is paid by a native job too.
  EXPECT_DOUBLE_EQ(net_compile_overhead(10, 4, 2), 26);
  EXPECT_DOUBLE_EQ(net_compile_overhead(1, 4, 0), 0);  // never below 0
  EXPECT_DOUBLE_EQ(net_compile_overhead(-1, 0, 2), 0);
}

TEST(Amortization, SlowerCompiledIsNotWorthIt) {
  const Amortization a = amortize(10, 9, 8, 5);
  EXPECT_FALSE(a.worth_compiling);
  EXPECT_NEAR(a.speedup, 0.9, 1e-12);
  EXPECT_EQ(describe_break_even(a), "not worth compiling");
}
