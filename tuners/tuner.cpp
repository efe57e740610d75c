// The shared part of every strategy: the trial cap in front of its proposals, and the told trials
// behind its best. A strategy never keeps a second history.
#include "tuners/tuner.h"

#include "util/table_format.h"

namespace tune {

std::optional<Candidate> Tuner::ask() {
  if (max_trials_ > 0 && static_cast<int>(told_.size()) >= max_trials_) {
    if (!capped_) stop_reason_ = strf("max trials reached (%d)", max_trials_) + (stop_reason_.empty() ? "" : "; " + stop_reason_);
    capped_ = true;
    return std::nullopt;
  }
  return propose();
}

void Tuner::tell(const Candidate& candidate, const TrialResult& result) {
  told_.emplace_back(candidate, result);
  observe(candidate, result);
}

std::optional<ToldTrial> Tuner::best() const { return best_trial(told_, objective_); }

}  // namespace tune
