// Batch-size search: a power-of-two ramp up to the first failure (out of memory), then a binary
// search between the last size that fit and the first that failed; best by samples/s with a safety margin.
#pragma once
#include <vector>

#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

// Every candidate trains at reference_learning_rate: throughput does not depend on it.
class BatchSearch : public Tuner {
 public:
  static const OptionList& options();
  explicit BatchSearch(const TunerSpace& space);
  std::string name() const override { return "batch_search"; }
  // The fastest size within the safety margin (the fastest that fit when none is).
  std::optional<ToldTrial> best() const override;
  // The largest size that fit and the smallest that failed (0 while unknown).
  int largest_fit() const { return last_fit_; }
  int smallest_failure() const { return first_fail_; }

 private:
  std::optional<Candidate> propose() override;
  void observe(const Candidate& candidate, const TrialResult& result) override;
  bool is_safe(const ToldTrial& trial) const;
  std::optional<int> next_size() const;
  std::string describe_choice() const;

  TunerSpace space_;
  double margin_;
  int granularity_;
  std::vector<int> ramp_;
  size_t ramp_next_ = 0;
  int last_fit_ = 0, first_fail_ = 0;
  std::string failure_;  // status of the first failing size
};

}  // namespace tune
