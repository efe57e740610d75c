// The batch-scaling rules for learning rates and the large-batch model of steps to a target: pure
// functions, the one place these rules are written.
#include "tuners/batch_scaling.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "util/check.h"
#include "util/table_format.h"

namespace tune {

double linear_rule_rate(double learning_rate, int from_batch, int to_batch) {
  return learning_rate * (static_cast<double>(to_batch) / from_batch);
}

double sqrt_rule_rate(double learning_rate, int from_batch, int to_batch) {
  return learning_rate * std::sqrt(static_cast<double>(to_batch) / from_batch);
}

std::vector<double> scaling_rule_rates(double learning_rate, int from_batch, int to_batch) {
  if (!(learning_rate > 0) || from_batch < 1 || to_batch < 1)
    throw std::invalid_argument(strf("learning rate %g from batch %d to %d: expected a rate > 0 and batches >= 1",
                                     learning_rate, from_batch, to_batch));
  std::vector<double> rates{learning_rate, sqrt_rule_rate(learning_rate, from_batch, to_batch),
                            linear_rule_rate(learning_rate, from_batch, to_batch)};
  std::sort(rates.begin(), rates.end());
  rates.erase(std::unique(rates.begin(), rates.end(), [](double a, double b) { return std::fabs(a - b) <= 1e-12 * b; }),
              rates.end());
  return rates;
}

double large_batch_model_steps(StepsAtBatch larger, StepsAtBatch smaller, int batch) {
  TUNE_CHECK(smaller.batch < larger.batch && batch > 0, "large-batch model: batches out of order");
  // S = a + c / b through both points: c = S_min B_noise, a = S_min.
  const double c = std::max(0.0, (smaller.steps - larger.steps) / (1.0 / smaller.batch - 1.0 / larger.batch));
  const double a = larger.steps - c / larger.batch;
  if (a < 0) return smaller.steps * smaller.batch / batch;
  return a + c / batch;
}

}  // namespace tune
