// Time to a target loss from a recorded loss curve, scored as trial_runner scores a trial: pure
// functions, shared by the time-to-loss ladder and the tests.
#include "tuners/time_to_target.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "util/table_format.h"

namespace tune {

int steps_for_samples(int samples, int batch_size) {
  if (samples < 1 || batch_size < 1)
    throw std::invalid_argument(strf("samples %d at batch %d: expected both >= 1", samples, batch_size));
  return std::max(2, (samples + batch_size - 1) / batch_size);
}

int score_window(int samples, int batch_size) { return std::max(2, steps_for_samples(samples, batch_size) / 4); }

std::optional<int> steps_to_reach(const std::vector<double>& losses, double target_loss, int window) {
  // Prefix sums keep each window's mean O(1); a non-finite loss ends the curve (the run diverged).
  std::vector<double> sums{0.0};
  for (double loss : losses) {
    if (!std::isfinite(loss)) break;
    sums.push_back(sums.back() + loss);
  }
  const int n = static_cast<int>(sums.size()) - 1;
  // A relative tolerance: a curve reaches its own score however its sums were rounded.
  const double target = target_loss + 1e-9 * std::fabs(target_loss);
  for (int k = std::max(1, window); k <= n; ++k)
    if ((sums[k] - sums[k - window]) / window <= target) return k;
  return std::nullopt;
}

std::optional<double> seconds_to_reach(const std::vector<double>& losses, double target_loss, int window,
                                       double step_seconds) {
  const auto steps = steps_to_reach(losses, target_loss, window);
  if (!steps || !(step_seconds > 0)) return std::nullopt;
  return *steps * step_seconds;
}

}  // namespace tune
