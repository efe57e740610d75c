// Grid search: every batch size in the range crossed with every learning rate in the list, the
// exhaustive reference the other strategies are measured against; best by the stage objective.
#pragma once
#include <vector>

#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

// The throughput stage trains every batch at reference_learning_rate (throughput does not depend on it).
class GridSearch : public Tuner {
 public:
  static const OptionList& options();
  explicit GridSearch(const TunerSpace& space);
  std::string name() const override { return "grid"; }

 private:
  std::optional<Candidate> propose() override;

  std::vector<Candidate> points_;
};

}  // namespace tune
