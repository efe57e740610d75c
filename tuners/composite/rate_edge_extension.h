// A strategy over a learning-rate strategy: when the best rate it found is the largest (or smallest) it tried,
// the optimum is not found yet, so the search goes on past that edge by a constant factor until the score turns.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/stop_reasons.h"
#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

// Runs `inner` to its end, then extends: while the best told rate is the largest told at its batch, the next
// candidate is best x factor; while it is the smallest, best / factor (upward first). A rate past the space's
// bound is not run, and the side it was on is left unfound (edge()). A run that diverged or scored worse is
// where the score turned. Extension trials have the best trial's length (asha's longest rung, say).
// `ranks` says whether a trial's model learned enough for its loss to rank rates (empty: every trial does): a best
// at the smallest rate whose model has not is not extended below it, since a smaller rate moves the weights less
// and cannot learn more, so its lead is noise, and each step down would follow the noise to the bound (a classifier
// at chance walked from 3e-5 down to 1.2e-7 in one sitting of issue 33's benchmark). The edge stays marked. At the
// largest rate the extension goes on: a larger rate is how a model that has not learned yet may learn.
using RankCheck = std::function<bool(const TrialResult&)>;
class RateEdgeExtension : public Tuner {
 public:
  RateEdgeExtension(std::unique_ptr<Tuner> inner, const TunerSpace& space, RankCheck ranks = {});
  std::string name() const override { return inner_->name(); }
  // The inner strategy's best, or an extension trial of the same length that scored lower.
  std::optional<ToldTrial> best() const override;
  // Which side the best rate is still on when the search ended (its bound, or the caller stopped asking).
  RateEdge edge() const;

 private:
  std::optional<Candidate> propose() override;
  void observe(const Candidate& candidate, const TrialResult& result) override;
  std::optional<Candidate> next_past_edge();
  RateEdge edge_of(const Candidate& best) const;
  std::vector<double> rates_at(int batch_size) const;

  std::unique_ptr<Tuner> inner_;
  RankCheck ranks_;
  double factor_, low_, high_;
  bool inner_done_ = false;
  bool bounded_above_ = false, bounded_below_ = false;
  std::vector<ToldTrial> extension_;  // the trials past the inner strategy's edge
  std::string inner_stop_;
};

// A learning-rate stage: the registry's strategy `name` (tuners/tuner_registry.h) inside the edge extension, so a
// best rate at the end of those tried is searched past (where `ranks` says it learned). Throws as make_tuner does.
std::unique_ptr<RateEdgeExtension> make_rate_tuner(const std::string& name, const TunerSpace& space, uint64_t seed,
                                                   RankCheck ranks = {});

}  // namespace tune
