// The trial cap: forwards ask/tell to the wrapped strategy until max_trials results were told.
// Its stop reason is the strategy's own, or says the cap ended the search.
#include "tuners/trial_cap.h"

#include "util/table_format.h"

namespace tune {

TrialCap::TrialCap(std::unique_ptr<Tuner> inner, int max_trials) : inner_(std::move(inner)), max_trials_(max_trials) {}

std::optional<Candidate> TrialCap::ask() {
  if (told_ >= max_trials_) {
    stop_reason_ = strf("max trials reached (%d)", max_trials_);
    if (!inner_->stop_reason().empty()) stop_reason_ += "; " + inner_->stop_reason();
    return std::nullopt;
  }
  auto candidate = inner_->ask();
  stop_reason_ = inner_->stop_reason();
  return candidate;
}

void TrialCap::tell(const Candidate& candidate, const TrialResult& result) {
  ++told_;
  inner_->tell(candidate, result);
  stop_reason_ = inner_->stop_reason();
}

}  // namespace tune
