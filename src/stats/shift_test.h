// Rank-based comparison of two samples for regression checks: exact Mann-Whitney test, Hodges-Lehmann
// shift and its distribution-free confidence interval, and the verdict rule (significant AND large enough).
#pragma once
#include <vector>

namespace tune {

// How `current` differs from `reference`, on the samples' own scale (regress feeds log speedups and
// log throughputs, so a shift of log(0.9) is a 10% drop).
struct ShiftEstimate {
  int reference_count = 0;
  int current_count = 0;
  double shift = 0;    // Hodges-Lehmann: median of all pairwise differences current - reference
  double ci_low = 0;   // Moses interval of the shift, coverage >= 1 - alpha (exact, from the U distribution)
  double ci_high = 0;  // (too few samples for that coverage: the range of the differences)
  double p_value = 1;  // two-sided exact Mann-Whitney; ties count half
  bool significant = false;  // the interval excludes 0 (never with too few samples for its coverage)
};

// Throws std::invalid_argument naming the empty side or an alpha outside (0, 1).
ShiftEstimate estimate_shift(const std::vector<double>& reference, const std::vector<double>& current, double alpha);

// P(U <= u) under the null for sample sizes n and m (U counts pairs current > reference); exact.
double mann_whitney_cdf(int n, int m, double u);

enum class ShiftVerdict { same, worse, better };

// Worse / better only when significant (the interval excludes 0) AND the point estimate moves
// by at least min_effect (a relative change: 0.08 = 8%). Samples are logs of a higher-is-better metric.
ShiftVerdict judge_shift(const ShiftEstimate& estimate, double min_effect);

const char* to_string(ShiftVerdict verdict);

}  // namespace tune
