// The batch rule (batch_pick.h): one place, so the ramp, the batch stage and the table cannot disagree.
#include "tuners/batch_pick.h"

#include <algorithm>

#include "tuners/objective.h"

namespace tune {
namespace {

// Beyond +-10% the CI says the machine was too noisy to call any size as fast as another.
constexpr double kTrustedCiHalfwidth = 0.10;

}  // namespace

double slowest_plausible(const TrialResult& r, int batch_size) {
  const bool trusted = r.step_time_ci_high > 0 && r.step_time_median > 0 &&
                       (r.step_time_ci_high - r.step_time_ci_low) / (2 * r.step_time_median) <= kTrustedCiHalfwidth;
  // A data-parallel trial's step trains the batch on every rank: its samples/s count them all, so must this bound
  // (with the per-rank batch alone, a 2-rank size ran half as fast as its floor, and batch 2 "matched" batch 8).
  const int ranks = std::max(1, r.data_parallel.ranks);
  return trusted ? static_cast<double>(batch_size) * ranks / r.step_time_ci_high : r.samples_per_second;
}

ToldTrial smallest_as_fast(const std::vector<ToldTrial>& trials, const ToldTrial& fastest) {
  // Only the fastest's CI counts: a wide CI of a noisy smaller size must not make it look as fast.
  const double floor = slowest_plausible(fastest.second, fastest.first.batch_size);
  const ToldTrial* pick = &fastest;
  for (const auto& t : trials)
    if (is_usable(t.second, StageObjective::throughput) && t.first.batch_size < pick->first.batch_size &&
        t.second.samples_per_second >= floor)
      pick = &t;
  return *pick;
}

bool faster_beyond_noise(const ToldTrial& fastest, double chosen_samples_per_second) {
  return chosen_samples_per_second < slowest_plausible(fastest.second, fastest.first.batch_size);
}

std::optional<ToldTrial> pick_batch(const std::vector<ToldTrial>& trials) {
  const auto fastest = best_trial(trials, StageObjective::throughput);
  if (!fastest) return std::nullopt;
  return smallest_as_fast(trials, *fastest);
}

}  // namespace tune
