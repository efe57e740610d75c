// Learning rate by successive halving (registered as "asha"): short trials for many rates, the best
// 1/eta trained longer at each rung, diverging runs pruned early; best by score_loss at the last rung.
#pragma once
#include <vector>

#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

// Scaling rules: with reference_batch_size > 0 and the batch (max_batch_size) k times the reference,
// the first rung adds reference_learning_rate x k (linear) and x sqrt(k), when inside the range.
// Rungs run one after another (ask/tell is sequential): synchronous successive halving. A promoted
// rate trains again from the start for the longer rung; nothing is resumed.
class SuccessiveHalving : public Tuner {
 public:
  static const OptionList& options();
  explicit SuccessiveHalving(const TunerSpace& space);
  std::string name() const override { return "asha"; }
  // Losses after different numbers of steps do not compare: the best at the highest rung with a result.
  std::optional<ToldTrial> best() const override;
  // The first rung's rates that came from the scaling rules.
  const std::vector<double>& scaling_rule_rates() const { return scaling_rates_; }

 private:
  std::optional<Candidate> propose() override;
  void observe(const Candidate& candidate, const TrialResult& result) override;
  std::vector<ToldTrial> rung_trials(size_t rung) const;
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
  std::vector<size_t> rung_starts_{0};            // the index in told() of each rung's first trial
  std::string pruned_;                            // rates pruned as diverging, for the stop reason
  bool done_ = false;
};

}  // namespace tune
