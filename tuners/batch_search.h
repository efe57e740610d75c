// Batch-size search: a power-of-two ramp up to the first failure (out of memory), then a binary
// search between the last size that fit and the first that failed; best by samples/s with a safety margin.
#pragma once
#include <vector>

#include "tuners/tuner_space.h"

namespace tune {

// Options (TunerSpace::options):
//   margin       keep this fraction of memory free (default 0.10): the chosen size is the fastest whose
//                peak memory is <= (1 - margin) x memory_limit_bytes; with the peak or the limit unknown,
//                the fastest size <= (1 - margin) x the first failing size
//   granularity  the binary search probes multiples of this (default 8; sizes below it exactly) and
//                stops when no such size lies between the last fit and the first failure
// Every candidate trains at reference_learning_rate: throughput does not depend on it.
class BatchSearch : public Tuner {
 public:
  static std::vector<std::string> option_names() { return {"margin", "granularity"}; }
  explicit BatchSearch(const TunerSpace& space);
  std::string name() const override { return "batch_search"; }
  std::optional<Candidate> ask() override;
  void tell(const Candidate& candidate, const TrialResult& result) override;
  std::optional<std::pair<Candidate, TrialResult>> best() const override;
  // The largest size that fit and the smallest that failed (0 while unknown).
  int largest_fit() const { return last_fit_; }
  int smallest_failure() const { return first_fail_; }

 private:
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
  std::vector<ToldTrial> told_;
};

}  // namespace tune
