// Grid search: every batch size in the range crossed with every learning rate in the list, the
// exhaustive reference the other strategies are measured against; best by the stage objective.
#pragma once
#include <vector>

#include "tuners/tuner_space.h"

namespace tune {

// Options (TunerSpace::options):
//   lr_points   learning rates log-spaced over the range when the space has no explicit list (default 7)
//   batch_step  0: powers of two in the batch range (default); n > 0: every multiple of n in the range
// The throughput stage trains every batch at reference_learning_rate (throughput does not depend on it).
class GridSearch : public Tuner {
 public:
  static std::vector<std::string> option_names() { return {"lr_points", "batch_step"}; }
  explicit GridSearch(const TunerSpace& space);
  std::string name() const override { return "grid"; }
  std::optional<Candidate> ask() override;
  void tell(const Candidate& candidate, const TrialResult& result) override;
  std::optional<std::pair<Candidate, TrialResult>> best() const override;

 private:
  StageObjective objective_;
  std::vector<Candidate> points_;
  size_t next_ = 0;
  std::vector<ToldTrial> told_;
};

}  // namespace tune
