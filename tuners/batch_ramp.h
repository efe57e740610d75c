// Stage 1 strategy: batch sizes in powers of two from the range minimum, scored by samples/s, until a size
// fails (out of memory), throughput stops improving for `patience` + 1 doublings (one doubling from twice the
// space's expected peak on), or the range's maximum.
#pragma once
#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

// Every candidate trains at reference_learning_rate: throughput does not depend on it.
class BatchRamp : public Tuner {
 public:
  static const OptionList& options();
  explicit BatchRamp(const TunerSpace& space);
  std::string name() const override { return "batch_ramp"; }
  // The smallest size whose median samples/s lies within the fastest size's 95% CI (the fastest without CIs);
  // once a size ran out of memory, "the fastest" is the fastest keeping the memory margin (option margin).
  std::optional<ToldTrial> best() const override;

 private:
  std::optional<Candidate> propose() override;
  void observe(const Candidate& candidate, const TrialResult& result) override;

  int max_batch_size_;
  double learning_rate_;
  double min_throughput_gain_;
  int patience_;
  int expected_peak_;  // the space's expected_peak_batch_size (0: none)
  double margin_;
  int64_t memory_limit_bytes_;
  int oom_batch_ = 0;  // the size that ran out of memory (0: none)
  int next_;
  int flat_ = 0;  // doublings in a row that did not gain min_throughput_gain over the fastest so far
  bool done_ = false;
};

}  // namespace tune
