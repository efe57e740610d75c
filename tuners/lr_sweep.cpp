// Stage 2 strategy: a fixed list of learning rates, scored by the tail-mean training loss.
// A run that diverged or failed is recorded but can never be chosen.
#include "tuners/lr_sweep.h"

namespace tune {

LrSweep::LrSweep(LrSweepOptions options) : options_(std::move(options)) {}

std::optional<Candidate> LrSweep::ask() {
  if (next_ >= options_.learning_rates.size()) {
    stop_reason_ = "all learning rates tried";
    return std::nullopt;
  }
  return Candidate{options_.batch_size, options_.learning_rates[next_], 0};
}

void LrSweep::tell(const Candidate& candidate, const TrialResult& result) {
  told_.emplace_back(candidate, result);
  ++next_;
}

std::optional<std::pair<Candidate, TrialResult>> LrSweep::best() const {
  std::optional<std::pair<Candidate, TrialResult>> best;
  for (const auto& entry : told_)
    if (entry.second.ok() && (!best || entry.second.score_loss < best->second.score_loss)) best = entry;
  return best;
}

}  // namespace tune
