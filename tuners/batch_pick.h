// The rule every choice of a batch size follows, wherever the trials come from (the ramp's own, the batch stage
// over every trial its study stores, the table): the fastest size, or the smallest whose median samples/s lies
// within the fastest's 95% CI. Within the noise a smaller batch is as fast and leaves more optimizer steps per
// sample and memory to spare.
#pragma once
#include <optional>
#include <vector>

#include "tuners/candidate.h"

namespace tune {

// Samples/s at the slow end of the trial's step-time 95% CI (over all ranks of a data-parallel trial; batch_size is
// per rank); its median where it has no CI or one too wide to trust (beyond +-10%: a loaded machine, where the
// fastest median stands).
double slowest_plausible(const TrialResult& result, int batch_size);

// Of `trials`, the smallest size whose samples/s reaches `fastest`'s slowest plausible figure (`fastest` itself
// when none smaller does). Failed trials never count.
ToldTrial smallest_as_fast(const std::vector<ToldTrial>& trials, const ToldTrial& fastest);

// Whether `fastest` ran faster than `chosen` beyond the noise: `chosen`'s samples/s lie below `fastest`'s slowest
// plausible figure. A choice within the noise of a faster trial stands, whatever rule made it.
bool faster_beyond_noise(const ToldTrial& fastest, double chosen_samples_per_second);

// The rule over a set of trials in any order: the fastest usable one, then smallest_as_fast; nothing when none ran.
std::optional<ToldTrial> pick_batch(const std::vector<ToldTrial>& trials);

}  // namespace tune
