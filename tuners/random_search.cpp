// Random search: draws from std::mt19937_64, whose output sequence the standard fixes, mapped to
// indices and log-uniform rates by hand so the same seed gives the same candidates on every platform.
#include "tuners/random_search.h"

#include <algorithm>
#include <cmath>

#include "util/table_format.h"

namespace tune {

const OptionList& RandomSearch::options() {
  static const OptionList list{{{"trials", 12, "how many candidates to draw (never more than max_trials)"}}};
  return list;
}

RandomSearch::RandomSearch(const TunerSpace& space, uint64_t seed)
    : Tuner(space.objective, space.max_trials),
      space_(space),
      batches_(power_of_two_batches(space)),
      trials_(std::min(space.max_trials, static_cast<int>(options().value(space, "trials")))),
      rng_(seed) {}

Candidate RandomSearch::draw() {
  const int batch = batches_[rng_() % batches_.size()];
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  const double lo = std::log(space_.min_learning_rate), hi = std::log(space_.max_learning_rate);
  const double lr = space_.objective == StageObjective::throughput ? space_.reference_learning_rate
                                                                   : std::exp(lo + u * (hi - lo));
  return Candidate{batch, lr, space_.train_steps};
}

bool RandomSearch::already_asked(const Candidate& candidate) const {
  return std::any_of(told().begin(), told().end(), [&](const ToldTrial& t) { return t.first == candidate; });
}

std::optional<Candidate> RandomSearch::propose() {
  if (pending_) return pending_;
  if (static_cast<int>(told().size()) >= trials_) {
    stop_reason_ = strf("drew all %d trials", trials_);
    return std::nullopt;
  }
  // A bounded number of redraws: a space smaller than `trials` (few batch sizes) is then exhausted.
  for (int attempt = 0; attempt < 64; ++attempt) {
    const Candidate candidate = draw();
    if (already_asked(candidate)) continue;
    pending_ = candidate;
    return pending_;
  }
  stop_reason_ = strf("no new candidate after %zu trials: the space is exhausted", told().size());
  return std::nullopt;
}

void RandomSearch::observe(const Candidate&, const TrialResult&) { pending_.reset(); }

}  // namespace tune
