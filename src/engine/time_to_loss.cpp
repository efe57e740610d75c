// Time to a target loss from a recorded loss curve, scored as trial_runner scores a trial, and the
// batch-scaling rules for learning rates; all pure functions, shared by the engine and the benchmark.
#include "engine/time_to_loss.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "util/check.h"
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

double large_batch_model_steps(StepsAtBatch larger, StepsAtBatch smaller, int batch) {
  TUNE_CHECK(smaller.batch < larger.batch && batch > 0, "large-batch model: batches out of order");
  // S = a + c / b through both points: c = S_min B_noise, a = S_min.
  const double c = std::max(0.0, (smaller.steps - larger.steps) / (1.0 / smaller.batch - 1.0 / larger.batch));
  const double a = larger.steps - c / larger.batch;
  if (a < 0) return smaller.steps * smaller.batch / batch;
  return a + c / batch;
}

double sqrt_rule_rate(double learning_rate, int from_batch, int to_batch) {
  return learning_rate * std::sqrt(static_cast<double>(to_batch) / from_batch);
}

std::vector<double> scaling_rule_rates(double learning_rate, int from_batch, int to_batch) {
  if (!(learning_rate > 0) || from_batch < 1 || to_batch < 1)
    throw std::invalid_argument(strf("learning rate %g from batch %d to %d: expected a rate > 0 and batches >= 1",
                                     learning_rate, from_batch, to_batch));
  const double k = static_cast<double>(to_batch) / from_batch;
  std::vector<double> rates{learning_rate, sqrt_rule_rate(learning_rate, from_batch, to_batch), learning_rate * k};
  std::sort(rates.begin(), rates.end());
  rates.erase(std::unique(rates.begin(), rates.end(), [](double a, double b) { return std::fabs(a - b) <= 1e-12 * b; }),
              rates.end());
  return rates;
}

}  // namespace tune
