// Stage 2 strategy: learning rates from a list at a fixed batch size, each trained for the same
// number of steps and scored by the mean loss of the last steps; diverged runs never win.
#pragma once
#include <vector>

#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

// Trains at max_batch_size. With start_near 0, every listed rate in list order. Else a walk that takes the
// score as unimodal in the rate: the listed rate nearest start_near (on a log scale) first, then upward
// while each rate scores better than the one before it; when the first step up does not, downward likewise.
class LrSweep : public Tuner {
 public:
  static const OptionList& options();
  explicit LrSweep(const TunerSpace& space);
  std::string name() const override { return "lr_sweep"; }

 private:
  std::optional<Candidate> propose() override;
  void observe(const Candidate& candidate, const TrialResult& result) override;
  std::optional<size_t> next_of_walk();
  std::optional<size_t> next_down(size_t from);
  bool better_than_previous(size_t index) const;
  bool walks() const { return start_near_ > 0; }

  int batch_size_;
  std::vector<double> rates_;  // ascending when the sweep walks
  double start_near_;
  size_t next_ = 0;
  // The walk: where it started, its direction (+1 up, -1 down), and the index it told last.
  size_t start_ = 0;
  int direction_ = +1;
  std::optional<size_t> last_;
};

}  // namespace tune
