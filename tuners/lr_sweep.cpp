// Stage 2 strategy: a list of learning rates, every one in order or a unimodal walk from a start rate,
// scored by the tail-mean training loss. A run that diverged or failed is recorded but never chosen.
#include "tuners/lr_sweep.h"

#include <algorithm>
#include <cmath>

namespace tune {

const OptionList& LrSweep::options() {
  static const OptionList list{{
      {"lr_points", 5, "rates log-spaced over the range when the space has no list"},
      {"start_near", std::nullopt,
       "0: every rate in order; else a unimodal walk from the listed rate nearest it (default: the space's "
       "start rate, e.g. the time-to-loss ladder's scaled reference rate; 0 when it has none)",
       "start_learning_rate"},
  }};
  return list;
}

LrSweep::LrSweep(const TunerSpace& space)
    : Tuner(StageObjective::loss, space.max_trials),
      batch_size_(space.max_batch_size),
      rates_(learning_rate_list(space, static_cast<int>(options().value(space, "lr_points")))),
      start_near_(options().value_or(space, "start_near", space.start_learning_rate)) {
  if (!walks() || rates_.empty()) return;
  auto& rates = rates_;
  std::sort(rates.begin(), rates.end());
  const double target = std::log(start_near_);
  const auto distance = [&](double rate) { return std::fabs(std::log(rate) - target); };
  start_ = static_cast<size_t>(std::min_element(rates.begin(), rates.end(),
                                                [&](double a, double b) { return distance(a) < distance(b); }) -
                               rates.begin());
}

std::optional<Candidate> LrSweep::propose() {
  const std::optional<size_t> index = walks()                ? next_of_walk()
                                      : next_ < rates_.size() ? std::optional<size_t>(next_)
                                                              : std::nullopt;
  if (!index) {
    if (stop_reason_.empty()) stop_reason_ = "all learning rates tried";
    return std::nullopt;
  }
  next_ = *index;
  return Candidate{batch_size_, rates_[*index], 0};
}

// Start; up while each rate beats the one below it; when the first step up does not, down from the start
// while each beats the one above it.
std::optional<size_t> LrSweep::next_of_walk() {
  if (!last_) return start_;
  const size_t last = *last_, top = rates_.size() - 1;
  if (direction_ > 0) {
    const bool going_on = last == start_ || better_than_previous(last);
    if (going_on && last < top) return last + 1;
    if (last > start_ + 1 || (going_on && last > start_)) {
      stop_reason_ = going_on ? "the walk up reached the largest listed rate" : "the walk up stopped improving";
      return std::nullopt;
    }
    direction_ = -1;  // the first step up did not improve (or there was none): down from the start
    return next_down(start_);
  }
  if (!better_than_previous(last)) {
    stop_reason_ = "the walk down stopped improving";
    return std::nullopt;
  }
  return next_down(last);
}

std::optional<size_t> LrSweep::next_down(size_t from) {
  if (from > 0) return from - 1;
  stop_reason_ = "the walk reached the smallest listed rate";
  return std::nullopt;
}

// The rate at `index` scored better than its neighbour toward the start (which the walk told before it).
bool LrSweep::better_than_previous(size_t index) const {
  const size_t previous = index > start_ ? index - 1 : index + 1;
  const TrialResult *here = nullptr, *before = nullptr;
  for (const auto& [candidate, result] : told()) {
    if (candidate.learning_rate == rates_[index]) here = &result;
    if (candidate.learning_rate == rates_[previous]) before = &result;
  }
  if (!here || !here->ok()) return false;
  return !before || !before->ok() || here->score_loss < before->score_loss;
}

void LrSweep::observe(const Candidate&, const TrialResult&) {
  if (walks()) last_ = next_;
  else ++next_;
}

}  // namespace tune
