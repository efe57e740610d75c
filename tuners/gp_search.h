// Learning rate by Bayesian optimisation: a seeded stratified start, then a Gaussian-process
// surrogate of loss over log learning rate proposes the rate of highest expected improvement.
#pragma once
#include <random>
#include <vector>

#include "tuners/tuner_space.h"

namespace tune {

// Options (TunerSpace::options):
//   initial          rates drawn before the surrogate proposes, one per equal slice of the log range
//                    at a seeded position within it (default 4)
//   trials           all trials, initial ones included (default 10; never more than max_trials)
//   length_scale     the kernel's length in decades of learning rate (default 0.5)
//   noise            observation noise, relative to the variance of the losses (default 0.01)
//   min_improvement  stop when the best expected improvement is below this fraction of the best
//                    loss (default 0.001)
// A failed or diverged rate enters the surrogate as the worst loss seen plus half the spread, so the
// proposals move away from it; it never becomes the best. Trains at max_batch_size.
class GpSearch : public Tuner {
 public:
  static std::vector<std::string> option_names() {
    return {"initial", "trials", "length_scale", "noise", "min_improvement"};
  }
  GpSearch(const TunerSpace& space, uint64_t seed);
  std::string name() const override { return "gp"; }
  std::optional<Candidate> ask() override;
  void tell(const Candidate& candidate, const TrialResult& result) override;
  std::optional<std::pair<Candidate, TrialResult>> best() const override;

 private:
  std::optional<double> propose();  // log10 of the next rate, or nothing when no improvement is expected
  void observations(std::vector<double>& x, std::vector<double>& y) const;

  TunerSpace space_;
  int trials_;
  double lo_, hi_;  // log10 of the range
  std::vector<double> initial_;
  std::optional<Candidate> pending_;
  std::vector<ToldTrial> told_;
  bool done_ = false;
};

}  // namespace tune
