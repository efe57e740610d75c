// The edge extension around a learning-rate strategy: past the largest or smallest rate tried while the best
// sits there, a factor at a time, up to the space's bounds; a side the bound stopped is reported unfound.
#include "tuners/composite/rate_edge_extension.h"

#include <algorithm>

#include "tuners/tuner_registry.h"
#include "util/table_format.h"

namespace tune {

RateEdgeExtension::RateEdgeExtension(std::unique_ptr<Tuner> inner, const TunerSpace& space, RankCheck ranks)
    : Tuner(StageObjective::loss, space.max_trials),  // the stage's trial cap covers the extension too
      inner_(std::move(inner)),
      ranks_(std::move(ranks)),
      factor_(space.edge_factor),
      low_(space.rate_bound_low),
      high_(space.rate_bound_high) {}

std::optional<ToldTrial> RateEdgeExtension::best() const {
  std::optional<ToldTrial> best = inner_->best();
  for (const auto& t : extension_) {
    if (!is_usable(t.second, StageObjective::loss)) continue;
    if (!best || (t.first.train_steps == best->first.train_steps && t.second.score_loss < best->second.score_loss))
      best = t;
  }
  return best;
}

std::vector<double> RateEdgeExtension::rates_at(int batch_size) const {
  std::vector<double> rates;
  for (const auto& [c, r] : told())
    if (c.batch_size == batch_size) rates.push_back(c.learning_rate);
  return rates;
}

// The side to extend: a side not yet bounded first (a single rate is at both ends), else the stored rule's.
RateEdge RateEdgeExtension::edge_of(const Candidate& best) const {
  const std::vector<double> rates = rates_at(best.batch_size);
  if (rates.empty()) return RateEdge::none;
  const double rate = best.learning_rate;
  const bool top = rate >= *std::max_element(rates.begin(), rates.end());
  const bool bottom = rate <= *std::min_element(rates.begin(), rates.end());
  if (top && !bounded_above_) return RateEdge::above;
  if (bottom && !bounded_below_) return RateEdge::below;
  return rate_edge_of(rates, rate);
}

RateEdge RateEdgeExtension::edge() const {
  const auto b = best();
  return b ? rate_edge_of(rates_at(b->first.batch_size), b->first.learning_rate) : RateEdge::none;
}

std::optional<Candidate> RateEdgeExtension::propose() {
  if (!inner_done_) {
    if (auto c = inner_->ask()) return c;
    inner_done_ = true;
    inner_stop_ = inner_->stop_reason();
  }
  return next_past_edge();
}

void RateEdgeExtension::observe(const Candidate& candidate, const TrialResult& result) {
  if (inner_done_) extension_.push_back({candidate, result});
  else inner_->tell(candidate, result);
}

// The next rate past the edge the best sits on (the top first); none when the best is inside the rates tried
// or every side it sits on has reached its bound.
std::optional<Candidate> RateEdgeExtension::next_past_edge() {
  const auto b = best();
  const bool extends = factor_ > 1 && high_ > 0;
  const bool unranked = b && ranks_ && !ranks_(b->second);
  for (int side = 0; b && extends && side < 2; ++side) {
    const RateEdge edge = edge_of(b->first);
    if (edge == RateEdge::none || (edge == RateEdge::below && unranked)) break;
    const double rate = edge == RateEdge::above ? b->first.learning_rate * factor_ : b->first.learning_rate / factor_;
    const bool within = edge == RateEdge::above ? rate <= high_ * (1 + 1e-9) : rate >= low_ * (1 - 1e-9);
    if (within) return Candidate{b->first.batch_size, rate, b->first.train_steps};
    (edge == RateEdge::above ? bounded_above_ : bounded_below_) = true;
  }
  stop_reason_ = inner_stop_;
  if (!extension_.empty()) stop_reason_ += strf("; %d more rates past the edge", static_cast<int>(extension_.size()));
  const RateEdge unfound = b ? edge() : RateEdge::none;
  if (unfound == RateEdge::none) return std::nullopt;
  const bool above = unfound == RateEdge::above;
  const std::string why = !above && unranked ? std::string("it was not searched past: the model had not learned "
                                                           "enough to rank rates")
                          : extends ? strf("the bound %.0e stopped the search", above ? high_ : low_)
                                    : std::string("no edge extension");
  stop_reason_ += strf("; the best rate %.1e is the %s tried and %s (a %s rate may be better)",
                       b->first.learning_rate, above ? "largest" : "smallest", why.c_str(), above ? "larger" : "smaller");
  return std::nullopt;
}

std::unique_ptr<RateEdgeExtension> make_rate_tuner(const std::string& name, const TunerSpace& space, uint64_t seed,
                                                   RankCheck ranks) {
  return std::make_unique<RateEdgeExtension>(make_tuner(name, space, seed), space, std::move(ranks));
}

}  // namespace tune
