// Stage 2 strategy: a list of learning rates, every one in order or a unimodal walk from a start rate,
// scored by the tail-mean training loss. A run that diverged or failed is recorded but never chosen.
#include "tuners/lr_sweep.h"

#include <algorithm>
#include <cmath>

namespace tune {

LrSweep::LrSweep(LrSweepOptions options) : options_(std::move(options)) {
  if (options_.start_near <= 0 || options_.learning_rates.empty()) return;
  auto& rates = options_.learning_rates;
  std::sort(rates.begin(), rates.end());
  const double target = std::log(options_.start_near);
  const auto distance = [&](double rate) { return std::fabs(std::log(rate) - target); };
  start_ = static_cast<size_t>(std::min_element(rates.begin(), rates.end(),
                                                [&](double a, double b) { return distance(a) < distance(b); }) -
                               rates.begin());
}

std::optional<Candidate> LrSweep::ask() {
  const std::optional<size_t> index = options_.start_near > 0 ? next_of_walk()
                                      : next_ < options_.learning_rates.size() ? std::optional<size_t>(next_)
                                                                               : std::nullopt;
  if (!index) {
    if (stop_reason_.empty()) stop_reason_ = "all learning rates tried";
    return std::nullopt;
  }
  next_ = *index;
  return Candidate{options_.batch_size, options_.learning_rates[*index], 0};
}

// Start; up while each rate beats the one below it; when the first step up does not, down from the start
// while each beats the one above it.
std::optional<size_t> LrSweep::next_of_walk() {
  if (!last_) return start_;
  const size_t last = *last_, top = options_.learning_rates.size() - 1;
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
  for (const auto& [candidate, result] : told_) {
    if (candidate.learning_rate == options_.learning_rates[index]) here = &result;
    if (candidate.learning_rate == options_.learning_rates[previous]) before = &result;
  }
  if (!here || !here->ok()) return false;
  return !before || !before->ok() || here->score_loss < before->score_loss;
}

void LrSweep::tell(const Candidate& candidate, const TrialResult& result) {
  told_.emplace_back(candidate, result);
  if (options_.start_near > 0) last_ = next_;
  else ++next_;
}

std::optional<std::pair<Candidate, TrialResult>> LrSweep::best() const {
  std::optional<std::pair<Candidate, TrialResult>> best;
  for (const auto& entry : told_)
    if (entry.second.ok() && (!best || entry.second.score_loss < best->second.score_loss)) best = entry;
  return best;
}

}  // namespace tune
