// Synchronous successive halving over learning rates: rung r trains its rates for rung_steps[r]
// steps; when a rung is complete the best floor(n/eta) that did not diverge move on to the next.
#include "tuners/successive_halving.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "tuners/batch_scaling.h"
#include "util/table_format.h"

namespace tune {
namespace {

// Rung lengths from min_steps to max_steps, geometric, never shrinking; the last is max_steps exactly.
// The first rung is no shorter than a trial really runs (min_train_steps): a shorter one would only repeat
// the next.
std::vector<int> plan_rung_steps(const TunerSpace& space, double eta) {
  const OptionList& options = SuccessiveHalving::options();
  const int rungs = std::max(1, static_cast<int>(options.value(space, "rungs")));
  const int max_steps = static_cast<int>(options.value_or(space, "max_steps", space.train_steps > 0 ? space.train_steps : 27));
  const double derived_min = space.min_train_steps > 0
                                 ? std::min(max_steps, space.min_train_steps)
                                 : std::max(1.0, std::round(max_steps / std::pow(eta, rungs - 1)));
  const int min_steps = std::min(max_steps, std::max(1, static_cast<int>(options.value_or(space, "min_steps", derived_min))));
  std::vector<int> steps;
  for (int r = 0; r < rungs; ++r) {
    const double t = rungs == 1 ? 1.0 : static_cast<double>(r) / (rungs - 1);
    const int s = static_cast<int>(std::round(min_steps * std::pow(static_cast<double>(max_steps) / min_steps, t)));
    steps.push_back(std::max(steps.empty() ? 1 : steps.back(), s));
  }
  steps.back() = max_steps;
  return steps;
}

// Trials the rungs take at most when the first has n rates.
int planned_trials(int n, double eta, size_t rungs) {
  int total = 0;
  for (size_t r = 0; r < rungs; ++r, n = std::max(1, static_cast<int>(std::floor(n / eta)))) total += n;
  return total;
}

bool has_rate(const std::vector<double>& rates, double lr) {
  return std::any_of(rates.begin(), rates.end(), [lr](double r) { return std::fabs(std::log(r / lr)) < 1e-3; });
}

bool curve_is_finite(const TrialResult& result) {
  return std::all_of(result.losses.begin(), result.losses.end(), [](double l) { return std::isfinite(l); });
}

}  // namespace

const OptionList& SuccessiveHalving::options() {
  static const OptionList list{{
      {"lr_points", 9, "learning rates log-spaced over the range at the first rung (fewer when the plan would exceed max_trials)"},
      {"eta", 3, "keep the best floor(n / eta) of a rung's n rates, at least one (> 1)"},
      {"rungs", 3, "how many rungs"},
      {"max_steps", std::nullopt, "train steps at the last rung (default: the space's train_steps, or 27 when that is 0)",
       "train_steps"},
      {"min_steps", std::nullopt,
       "train steps at the first rung (default: the fewest a trial runs, its warm-up plus one, when the space says; "
       "else max_steps / eta^(rungs-1), at least 1); rungs between are geometric",
       "min_train_steps"},
      {"divergence_factor", 2,
       "a run is pruned whatever its rank when it failed, diverged, has a non-finite loss, or its score_loss exceeds "
       "the rung's best x this"},
  }};
  return list;
}

SuccessiveHalving::SuccessiveHalving(const TunerSpace& space)
    : Tuner(StageObjective::loss, space.max_trials),
      space_(space),
      eta_(options().value(space, "eta")),
      divergence_factor_(options().value(space, "divergence_factor")) {
  if (!(eta_ > 1)) throw std::invalid_argument(strf("asha option eta %g: expected > 1", eta_));
  if (!(divergence_factor_ >= 1))
    throw std::invalid_argument(strf("asha option divergence_factor %g: expected >= 1", divergence_factor_));
  rung_steps_ = plan_rung_steps(space, eta_);
  const int batch = space.max_batch_size, reference = space.reference_batch_size;
  if (reference > 0 && batch != reference)
    for (double lr : {linear_rule_rate(space.reference_learning_rate, reference, batch),
                      sqrt_rule_rate(space.reference_learning_rate, reference, batch)})
      if (lr >= space.min_learning_rate && lr <= space.max_learning_rate && !has_rate(scaling_rates_, lr))
        scaling_rates_.push_back(lr);
  plan_first_rung();
}

std::vector<double> SuccessiveHalving::first_rung_rates(int log_points) const {
  std::vector<double> rates = log_spaced(space_.min_learning_rate, space_.max_learning_rate, log_points);
  for (double lr : scaling_rates_)
    if (!has_rate(rates, lr)) rates.push_back(lr);
  return rates;
}

// As many log-spaced rates as the trial budget allows for every rung (the scaling rules always stay).
void SuccessiveHalving::plan_first_rung() {
  int points = std::max(1, static_cast<int>(options().value(space_, "lr_points")));
  while (points > 1 && planned_trials(static_cast<int>(first_rung_rates(points).size()), eta_, rung_steps_.size()) >
                           space_.max_trials)
    --points;
  rung_rates_ = first_rung_rates(points);
}

std::vector<ToldTrial> SuccessiveHalving::rung_trials(size_t rung) const {
  const size_t end = rung + 1 < rung_starts_.size() ? rung_starts_[rung + 1] : told().size();
  return {told().begin() + static_cast<std::ptrdiff_t>(rung_starts_[rung]), told().begin() + static_cast<std::ptrdiff_t>(end)};
}

std::optional<Candidate> SuccessiveHalving::propose() {
  if (done_ || next_ >= rung_rates_.size()) return std::nullopt;
  return Candidate{space_.max_batch_size, rung_rates_[next_], rung_steps_[rung_]};
}

void SuccessiveHalving::observe(const Candidate&, const TrialResult&) {
  if (++next_ >= rung_rates_.size()) close_rung();
}

// Pruned whatever its rank: failed, diverged, a non-finite loss, or far above the rung's best loss.
bool SuccessiveHalving::is_diverging(const TrialResult& result, double best_score) const {
  return !is_usable(result, StageObjective::loss) || !curve_is_finite(result) ||
         result.score_loss > best_score * divergence_factor_;
}

// The rung's rates worth training longer: not diverging, ranked by score_loss, the best floor(n/eta)
// (at least one), as successive halving and Hyperband keep them.
std::vector<double> SuccessiveHalving::survivors(const std::vector<ToldTrial>& rung, double best_score) const {
  std::vector<ToldTrial> alive;
  std::copy_if(rung.begin(), rung.end(), std::back_inserter(alive),
               [&](const ToldTrial& t) { return !is_diverging(t.second, best_score); });
  std::stable_sort(alive.begin(), alive.end(),
                   [](const ToldTrial& a, const ToldTrial& b) { return a.second.score_loss < b.second.score_loss; });
  const size_t keep = std::max<size_t>(1, static_cast<size_t>(std::floor(rung.size() / eta_)));
  std::vector<double> rates;
  for (size_t i = 0; i < alive.size() && i < keep; ++i) rates.push_back(alive[i].first.learning_rate);
  return rates;
}

void SuccessiveHalving::close_rung() {
  const std::vector<ToldTrial> rung = rung_trials(rung_);
  const auto leader = best_trial(rung, StageObjective::loss);
  const double best_score = leader ? leader->second.score_loss : 0;
  for (const auto& t : rung)
    if (is_diverging(t.second, best_score)) pruned_ += strf("%s%.2e at rung %zu", pruned_.empty() ? "" : ", ",
                                                            t.first.learning_rate, rung_);
  const std::string pruned_note = pruned_.empty() ? "" : "; pruned as diverging: " + pruned_;
  const auto next_rates = leader ? survivors(rung, best_score) : std::vector<double>{};
  if (next_rates.empty()) {
    done_ = true;
    stop_reason_ = strf("every learning rate failed or diverged at rung %zu", rung_) + pruned_note;
  } else if (rung_ + 1 >= rung_steps_.size()) {
    done_ = true;
    stop_reason_ = strf("%zu rungs done (%d to %d steps); best learning rate %.2e", rung_steps_.size(),
                        rung_steps_.front(), rung_steps_.back(), leader->first.learning_rate) + pruned_note;
  } else {
    rung_rates_ = next_rates;
    ++rung_;
    next_ = 0;
    rung_starts_.push_back(told().size());
  }
}

// Losses after different numbers of steps do not compare: the best is taken at the highest rung with a result.
std::optional<ToldTrial> SuccessiveHalving::best() const {
  for (size_t rung = rung_starts_.size(); rung-- > 0;)
    if (auto chosen = best_trial(rung_trials(rung), StageObjective::loss)) return chosen;
  return std::nullopt;
}

}  // namespace tune
