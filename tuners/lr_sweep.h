// Stage 2 strategy: learning rates from a list at a fixed batch size, each trained for the same
// number of steps and scored by the mean loss of the last steps; diverged runs never win.
#pragma once
#include <vector>

#include "tuners/tuner.h"

namespace tune {

struct LrSweepOptions {
  int batch_size = 1;
  std::vector<double> learning_rates{1e-5, 3e-5, 1e-4, 3e-4, 1e-3};
};

class LrSweep : public Tuner {
 public:
  explicit LrSweep(LrSweepOptions options);
  std::string name() const override { return "lr_sweep"; }
  std::optional<Candidate> ask() override;
  void tell(const Candidate& candidate, const TrialResult& result) override;
  std::optional<std::pair<Candidate, TrialResult>> best() const override;

 private:
  LrSweepOptions options_;
  size_t next_ = 0;
  std::vector<std::pair<Candidate, TrialResult>> told_;
};

}  // namespace tune
