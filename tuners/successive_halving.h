// Learning rate by successive halving (registered as "asha"): short trials for many rates, the best
// 1/eta trained longer at each rung, diverging runs pruned early; best by score_loss at the last rung.
#pragma once
#include <vector>

#include "tuners/tuner_space.h"

namespace tune {

// Options (TunerSpace::options):
//   lr_points          learning rates log-spaced over the range at the first rung (default 9; fewer
//                      when the plan would exceed max_trials)
//   eta                keep the best floor(n / eta) of a rung's n rates, at least one (default 3; > 1)
//   rungs              how many rungs (default 3)
//   max_steps          train steps at the last rung (default: train_steps, or 27 when that is 0)
//   min_steps          train steps at the first rung (default max_steps / eta^(rungs-1), at least 1);
//                      rungs between are geometric
//   divergence_factor  a run is pruned whatever its rank when it failed, diverged, has a non-finite
//                      loss, or its score_loss exceeds the rung's best x this (default 2)
// Scaling rules: with reference_batch_size > 0 and the batch (max_batch_size) k times the reference,
// the first rung adds reference_learning_rate x k (linear) and x sqrt(k), when inside the range.
// Rungs run one after another (ask/tell is sequential): synchronous successive halving. A promoted
// rate trains again from the start for the longer rung; nothing is resumed.
class SuccessiveHalving : public Tuner {
 public:
  static std::vector<std::string> option_names() {
    return {"lr_points", "eta", "rungs", "max_steps", "min_steps", "divergence_factor"};
  }
  explicit SuccessiveHalving(const TunerSpace& space);
  std::string name() const override { return "asha"; }
  std::optional<Candidate> ask() override;
  void tell(const Candidate& candidate, const TrialResult& result) override;
  std::optional<std::pair<Candidate, TrialResult>> best() const override;
  const std::vector<int>& rung_steps() const { return rung_steps_; }
  // The first rung's rates that came from the scaling rules.
  const std::vector<double>& scaling_rule_rates() const { return scaling_rates_; }

 private:
  std::vector<double> first_rung_rates(int log_points) const;
  void plan_first_rung();
  void close_rung();
  bool is_diverging(const TrialResult& result, double best_score) const;
  std::vector<double> survivors(const std::vector<ToldTrial>& rung, double best_score) const;

  TunerSpace space_;
  double eta_;
  double divergence_factor_;
  std::vector<int> rung_steps_;
  std::vector<double> scaling_rates_;
  std::vector<double> rung_rates_;                // the current rung's learning rates
  size_t rung_ = 0, next_ = 0;
  std::vector<std::vector<ToldTrial>> told_;      // per rung
  std::string pruned_;                            // rates pruned as diverging, for the stop reason
  bool done_ = false;
};

}  // namespace tune
