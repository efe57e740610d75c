// How the learning rate and the steps to a target move with the batch size: the linear and square-root
// scaling rules, and the empirical model of large-batch training. Successive halving and the time-to-loss
// ladder both read them here.
#pragma once
#include <vector>

namespace tune {

// The linear rule: learning_rate x k, with k = to_batch / from_batch.
double linear_rule_rate(double learning_rate, int from_batch, int to_batch);
// The square-root rule: learning_rate x sqrt(k).
double sqrt_rule_rate(double learning_rate, int from_batch, int to_batch);

// Learning rates to try at `to_batch` given one that worked at `from_batch`: the same rate, and the
// square-root and linear rules; duplicates removed, ascending. Throws std::invalid_argument quoting a
// rate <= 0 or a batch < 1.
std::vector<double> scaling_rule_rates(double learning_rate, int from_batch, int to_batch);

// A batch size and the steps it needed to reach the target (at its best rate).
struct StepsAtBatch {
  int batch = 1;
  double steps = 0;
};

// The empirical model of large-batch training (McCandlish et al. 2018, "An Empirical Model of Large-Batch
// Training"): steps to a target S(b) = S_min (1 + B_noise / b), fitted through two points; the steps it
// predicts at `batch`. Steps that did not grow as the batch shrank fit B_noise = 0 (S = S_min); steps that
// grew faster than the batch shrank fit S_min = 0 (constant samples, the smaller batch's).
double large_batch_model_steps(StepsAtBatch larger, StepsAtBatch smaller, int batch);

}  // namespace tune
