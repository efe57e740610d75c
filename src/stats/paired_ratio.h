// A paired comparison of two configurations measured in alternating rounds of one sitting: each round's ratio
// (compiled samples/s over native samples/s), their geometric mean with a Student-t interval on the logs, and the
// verdict a row gives (faster, slower, or no difference within the noise).
#pragma once
#include <string>
#include <vector>

namespace tune {

enum class PairedVerdict {
  unconfirmed,    // fewer than two rounds: no interval, so no finding
  faster,         // the interval lies above 1
  slower,         // the interval lies below 1
  no_difference,  // the interval holds 1: no difference within the noise
};

struct PairedRatio {
  int rounds = 0;
  double ratio = 0;    // geometric mean of the rounds' ratios (0 without rounds)
  double ci_low = 0;   // the interval of the geometric mean (rounds >= 2; else equal to ratio)
  double ci_high = 0;
  PairedVerdict verdict = PairedVerdict::unconfirmed;
};

// Each round's ratio numerators[i] / denominators[i] of two sides' per-round figures (a paired trial's block times),
// over the rounds both ran with a positive figure.
std::vector<double> round_ratios(const std::vector<double>& numerators, const std::vector<double>& denominators);

// From each round's ratio (> 0). Rounds are paired (both sides ran back to back), so the interval is the one-sample
// t-interval of the mean log ratio at `confidence` (0.95), exponentiated. Throws std::invalid_argument quoting a
// ratio that is not positive or a confidence outside (0, 1).
PairedRatio paired_ratio(const std::vector<double>& ratios, double confidence);

// "faster", "slower", "no difference", "unconfirmed".
std::string to_string(PairedVerdict verdict);

}  // namespace tune
