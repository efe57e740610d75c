// Stage 2 strategy: learning rates from a list at a fixed batch size, each trained for the same
// number of steps and scored by the mean loss of the last steps; diverged runs never win.
#pragma once
#include <vector>

#include "tuners/tuner.h"

namespace tune {

struct LrSweepOptions {
  int batch_size = 1;
  std::vector<double> learning_rates{1e-5, 3e-5, 1e-4, 3e-4, 1e-3};
  // 0: every listed rate, in list order. Else a walk that takes the score as unimodal in the rate: the
  // listed rate nearest start_near (on a log scale) first, then upward while each rate scores better than
  // the one before it; when the first step up does not, downward likewise (registry option start_near).
  double start_near = 0;
};

class LrSweep : public Tuner {
 public:
  explicit LrSweep(LrSweepOptions options);
  std::string name() const override { return "lr_sweep"; }
  std::optional<Candidate> ask() override;
  void tell(const Candidate& candidate, const TrialResult& result) override;
  std::optional<std::pair<Candidate, TrialResult>> best() const override;

 private:
  std::optional<size_t> next_of_walk();
  std::optional<size_t> next_down(size_t from);
  bool better_than_previous(size_t index) const;

  LrSweepOptions options_;  // learning_rates ascending when start_near is set
  size_t next_ = 0;
  std::vector<std::pair<Candidate, TrialResult>> told_;
  // The walk: where it started, its direction (+1 up, -1 down), and the index it told last.
  size_t start_ = 0;
  int direction_ = +1;
  std::optional<size_t> last_;
};

}  // namespace tune
