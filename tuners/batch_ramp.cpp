// Stage 1 strategy: a power-of-two batch-size ramp scored by throughput.
// It stops at the first failure, after patience + 1 doublings in a row that gain too little, or at the range maximum.
#include "tuners/batch_ramp.h"

#include <algorithm>

#include "util/table_format.h"

namespace tune {

BatchRamp::BatchRamp(BatchRampOptions options) : options_(options), next_(std::max(1, options.start)) {}

std::optional<Candidate> BatchRamp::ask() {
  if (done_) return std::nullopt;
  return Candidate{next_, options_.learning_rate, 0};
}

void BatchRamp::tell(const Candidate& candidate, const TrialResult& result) {
  const auto previous_best = fastest();
  told_.emplace_back(candidate, result);
  if (!result.ok()) {
    done_ = true;
    stop_reason_ = strf("batch %d: %s (%s)", candidate.batch_size, to_string(result.status).c_str(),
                        result.error_message.substr(0, 200).c_str());
    return;
  }
  const bool flat = previous_best && result.samples_per_second <
                                         previous_best->second.samples_per_second * (1 + options_.min_throughput_gain);
  flat_ = flat ? flat_ + 1 : 0;
  if (flat && flat_ > options_.patience) {
    done_ = true;
    stop_reason_ = strf("throughput stopped improving at batch %d (%.2f vs %.2f samples/s at batch %d; %d flat "
                        "doubling(s))", candidate.batch_size, result.samples_per_second,
                        previous_best->second.samples_per_second, previous_best->first.batch_size, flat_);
    return;
  }
  next_ = candidate.batch_size * 2;
  if (next_ > options_.max_batch_size) {
    done_ = true;
    capped_ = true;
    stop_reason_ = strf("reached the range maximum, batch %d", options_.max_batch_size);
  }
}

namespace {

// Beyond +-10% the CI says the machine was too noisy to call any size as fast as another.
constexpr double kTrustedCiHalfwidth = 0.10;

// Samples/s at the slow end of the step time's 95% CI; the median where the trial has no CI or one
// too wide to trust (a loaded machine: then the fastest median stands).
double slowest_plausible(const TrialResult& r, int batch) {
  const bool trusted = r.step_time_ci_high > 0 && r.step_time_median > 0 &&
                       (r.step_time_ci_high - r.step_time_ci_low) / (2 * r.step_time_median) <= kTrustedCiHalfwidth;
  return trusted ? batch / r.step_time_ci_high : r.samples_per_second;
}

}  // namespace

std::optional<std::pair<Candidate, TrialResult>> BatchRamp::fastest() const {
  std::optional<std::pair<Candidate, TrialResult>> best;
  for (const auto& entry : told_)
    if (entry.second.ok() && (!best || entry.second.samples_per_second > best->second.samples_per_second)) best = entry;
  return best;
}

// The fastest size, or a smaller one whose median lies within the fastest's CI: within measurement noise
// the smaller batch is as fast and leaves more optimizer steps per sample (and memory headroom). Only
// the fastest's CI counts: a wide CI of a noisy smaller size must not make it look as fast.
std::optional<std::pair<Candidate, TrialResult>> BatchRamp::best() const {
  const auto best = fastest();
  if (!best) return best;
  const double floor = slowest_plausible(best->second, best->first.batch_size);
  for (const auto& entry : told_)
    if (entry.second.ok() && entry.first.batch_size < best->first.batch_size &&
        entry.second.samples_per_second >= floor)
      return entry;  // told in ascending batch order: the first is the smallest
  return best;
}

}  // namespace tune
