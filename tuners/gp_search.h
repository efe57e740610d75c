// Learning rate by Bayesian optimisation: a seeded stratified start, then a Gaussian-process
// surrogate of loss over log learning rate proposes the rate of highest expected improvement.
#pragma once
#include <random>
#include <vector>

#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

// A failed or diverged rate enters the surrogate as the worst loss seen plus half the spread, so the
// proposals move away from it; it never becomes the best. Trains at max_batch_size.
class GpSearch : public Tuner {
 public:
  static const OptionList& options();
  GpSearch(const TunerSpace& space, uint64_t seed);
  std::string name() const override { return "gp"; }

 private:
  std::optional<Candidate> propose() override;
  void observe(const Candidate& candidate, const TrialResult& result) override;
  std::optional<double> next_log_rate();  // log10 of the next rate, or nothing when no improvement is expected
  void observations(std::vector<double>& x, std::vector<double>& y) const;

  TunerSpace space_;
  int trials_;
  double lo_, hi_;  // log10 of the range
  std::vector<double> initial_;
  std::optional<Candidate> pending_;
  bool done_ = false;
};

}  // namespace tune
