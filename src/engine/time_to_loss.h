// The time-to-loss objective: how many steps a loss curve needs to reach a target loss, and the wall
// time that takes at a measured step time; the learning rates the scaling rules give at a new batch.
#pragma once
#include <optional>
#include <vector>

namespace tune {

// The target and the trial length of a time-to-loss search (settings and flags resolve it).
struct TimeToLossTarget {
  double loss = 0;         // > 0: the target; 0: not yet known (the reference trial sets it)
  int samples = 1024;      // every trial trains on this many samples (steps = samples / batch, rounded up)
  int reference_batch = 16;            // the reference config whose final score is the default target
  double reference_learning_rate = 3e-4;
};

// The steps a trial of `samples` samples runs at `batch_size` (at least 2, so a score has two losses).
int steps_for_samples(int samples, int batch_size);

// The window a curve is scored over at `batch_size`: as trial_runner scores a full-length trial, the
// last quarter of its steps (at least 2), i.e. the last quarter of the samples at every batch size,
// so a small batch's noisier losses are averaged over as many samples as a large batch's.
int score_window(int samples, int batch_size);

// The fewest steps k >= window after which the mean of the last `window` losses is at or below the
// target: a trial stopped after k steps would have scored that. Nothing when the curve never gets there.
std::optional<int> steps_to_reach(const std::vector<double>& losses, double target_loss, int window);

// Seconds to the target: steps_to_reach x step time (the throughput stage's median at that batch).
std::optional<double> seconds_to_reach(const std::vector<double>& losses, double target_loss, int window,
                                       double step_seconds);

// Learning rates to try at `to_batch` given one that worked at `from_batch`: the same rate, and the
// square-root and linear scaling rules (x sqrt(k), x k with k = to/from); duplicates removed, ascending.
std::vector<double> scaling_rule_rates(double learning_rate, int from_batch, int to_batch);
// The square-root rule alone (the middle of those three): learning_rate x sqrt(to / from).
double sqrt_rule_rate(double learning_rate, int from_batch, int to_batch);

// Two batch sizes and the steps each needed to reach the target (at its best rate), as
// {batch, steps} points.
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
