// The time-to-loss objective: how many steps a loss curve needs to reach a target loss, and the wall
// time that takes at a measured step time; scored as a trial's loss is scored (its tail mean).
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

}  // namespace tune
