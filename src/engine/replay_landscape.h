// A recorded landscape to replay trials from, without hardware: per batch size what a throughput trial
// measured, per (batch size, learning rate) the loss at every step; other points are interpolated.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "tuners/tuner.h"

namespace tune {

// What a throughput trial measured at one batch size (status oom: it did not fit).
struct RecordedBatch {
  TrialStatus status = TrialStatus::ok;
  double samples_per_second = 0;
  int64_t peak_memory_bytes = 0;
};

class ReplayLandscape {
 public:
  // memory_limit_bytes: a batch whose peak memory exceeds it replays as oom (0: no limit).
  // default_train_steps: the length of a candidate with train_steps 0 (the engine's default).
  // trial_overhead_seconds: what every trial costs before its steps (process start, model build).
  ReplayLandscape(int64_t memory_limit_bytes, int default_train_steps, double trial_overhead_seconds);

  void record_batch(int batch_size, const RecordedBatch& batch);
  // The loss at every step of the longest run recorded at (batch, learning rate); a shorter run of the
  // same seed is its prefix, so one curve serves every train_steps up to its length.
  void record_losses(int batch_size, double learning_rate, std::vector<double> losses);

  // The trial result at the candidate. Batch sizes between recorded ones interpolate samples/s in log
  // batch and peak memory linearly (extrapolated beyond); learning rates between recorded ones
  // interpolate each step's loss in log learning rate (where one neighbour is NaN, the nearer one's
  // loss: divergence starts halfway between recorded rates), at the nearest
  // recorded batch. A run stops at its first non-finite loss (status diverged), as a real trial does.
  // Throws std::invalid_argument quoting train_steps beyond the recorded curves.
  TrialResult replay(const Candidate& candidate) const;
  // Simulated wall time: the overhead plus the steps run x the step time (an oom trial: the overhead).
  double trial_seconds(const Candidate& candidate, const TrialResult& result) const;

  int64_t memory_limit_bytes() const { return memory_limit_bytes_; }
  int default_train_steps() const { return default_train_steps_; }
  double trial_overhead_seconds() const { return trial_overhead_seconds_; }
  std::vector<int> recorded_batch_sizes() const;
  // The replayed batch-size record at any size (interpolated), oom when over the memory limit.
  RecordedBatch batch_at(int batch_size) const;

 private:
  std::vector<double> losses_at(int batch_size, double learning_rate, int steps) const;
  int nearest_batch_with_losses(int batch_size) const;

  int64_t memory_limit_bytes_;
  int default_train_steps_;
  double trial_overhead_seconds_;
  std::map<int, RecordedBatch> batches_;
  std::map<int, std::map<double, std::vector<double>>> losses_;  // batch -> learning rate -> per-step loss
};

}  // namespace tune
