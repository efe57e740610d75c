// Stage 1 strategy: batch sizes in powers of two from `start`, scored by samples/s, until a size
// fails (out of memory), throughput stops improving for `patience` + 1 doublings, or the range's maximum.
#pragma once
#include <vector>

#include "tuners/tuner.h"

namespace tune {

struct BatchRampOptions {
  int start = 1;
  int max_batch_size = 64;          // range maximum; a best size here is marked "capped by range"
  double min_throughput_gain = 0.05;  // a doubling must gain this much samples/s to continue
  double learning_rate = 1e-4;      // fixed during the ramp: throughput does not depend on it
  // Doublings without that gain tolerated before stopping: throughput over batch size is not monotone on
  // CPUs (measured: gpt2-tiny at seq 32 here, 405 / 670 / 656 / 1158 samples/s at batch 1 / 2 / 4 / 8, as
  // libtorch's intra-op parallelism starts at some sizes), so one flat step does not end the ramp.
  int patience = 1;
};

class BatchRamp : public Tuner {
 public:
  explicit BatchRamp(BatchRampOptions options);
  std::string name() const override { return "batch_ramp"; }
  std::optional<Candidate> ask() override;
  void tell(const Candidate& candidate, const TrialResult& result) override;
  // The smallest size whose median samples/s lies within the fastest size's 95% CI (the fastest without CIs).
  std::optional<std::pair<Candidate, TrialResult>> best() const override;
  // The best size is the largest tried and still fit: the real memory limit lies beyond the range.
  bool capped_by_range() const { return capped_; }

 private:
  std::optional<std::pair<Candidate, TrialResult>> fastest() const;  // highest median samples/s

  BatchRampOptions options_;
  int next_;
  int flat_ = 0;  // doublings in a row that did not gain min_throughput_gain over the fastest so far
  bool done_ = false, capped_ = false;
  std::vector<std::pair<Candidate, TrialResult>> told_;
};

}  // namespace tune
