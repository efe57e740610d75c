// Wraps any strategy so it asks for at most max_trials candidates: the registry's guarantee that
// every tuner ends within TunerSpace::max_trials, whatever the strategy plans.
#pragma once
#include <memory>

#include "tuners/tuner.h"

namespace tune {

class TrialCap : public Tuner {
 public:
  TrialCap(std::unique_ptr<Tuner> inner, int max_trials);
  std::string name() const override { return inner_->name(); }
  std::optional<Candidate> ask() override;
  void tell(const Candidate& candidate, const TrialResult& result) override;
  std::optional<std::pair<Candidate, TrialResult>> best() const override { return inner_->best(); }
  const Tuner& inner() const { return *inner_; }

 private:
  std::unique_ptr<Tuner> inner_;
  int max_trials_;
  int told_ = 0;
};

}  // namespace tune
