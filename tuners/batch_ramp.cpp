// Stage 1 strategy: a power-of-two batch-size ramp scored by throughput.
// It stops at the first failure, after patience + 1 doublings in a row that gain too little, or at the range maximum.
#include "tuners/batch_ramp.h"

#include <algorithm>

#include "tuners/batch_pick.h"
#include "tuners/memory_margin.h"
#include "util/table_format.h"

namespace tune {

const OptionList& BatchRamp::options() {
  static const OptionList list{{
      {"min_throughput_gain", 0.05, "a doubling must gain this share of samples/s to count as a gain"},
      // Throughput over batch size is not monotone on CPUs (measured: gpt2-tiny at seq 32 here, 405 / 670 /
      // 656 / 1158 samples/s at batch 1 / 2 / 4 / 8, as libtorch's intra-op parallelism starts at some
      // sizes), so one flat step does not end the ramp.
      {"patience", 1, "doublings in a row without that gain tolerated before the ramp stops"},
      {"margin", 0.10,
       "once a size ran out of memory, keep this share of memory free: the choice is among sizes whose peak is <= "
       "(1 - margin) x the memory limit (with the peak or limit unknown, <= (1 - margin) x the failing size)"},
  }};
  return list;
}

BatchRamp::BatchRamp(const TunerSpace& space)
    : Tuner(StageObjective::throughput, space.max_trials),
      max_batch_size_(space.max_batch_size),
      learning_rate_(space.reference_learning_rate),
      min_throughput_gain_(options().value(space, "min_throughput_gain")),
      patience_(static_cast<int>(options().value(space, "patience"))),
      expected_peak_(space.expected_peak_batch_size),
      margin_(options().value(space, "margin")),
      memory_limit_bytes_(space.memory_limit_bytes),
      next_(std::max(1, space.min_batch_size)) {}

std::optional<Candidate> BatchRamp::propose() {
  if (done_) return std::nullopt;
  return Candidate{next_, learning_rate_, 0};
}

void BatchRamp::observe(const Candidate& candidate, const TrialResult& result) {
  if (!result.ok()) {
    done_ = true;
    if (result.status == TrialStatus::oom) oom_batch_ = candidate.batch_size;
    stop_reason_ = strf("batch %d: %s (%s)", candidate.batch_size, to_string(result.status).c_str(),
                        result.error_message.substr(0, 200).c_str());
    return;
  }
  const std::vector<ToldTrial> before(told().begin(), told().end() - 1);
  const auto previous_best = best_trial(before, StageObjective::throughput);
  const bool flat = previous_best &&
                    result.samples_per_second < previous_best->second.samples_per_second * (1 + min_throughput_gain_);
  flat_ = flat ? flat_ + 1 : 0;
  // Past the size the caller expects the peak near, a flat doubling is not waited out: its larger sizes are the
  // ramp's slowest trials (each a cold compile for a compiler), and a curve still rising there goes on.
  const bool past_peak = expected_peak_ > 0 && candidate.batch_size >= 2 * expected_peak_;
  if (flat && flat_ > (past_peak ? 0 : patience_)) {
    done_ = true;
    stop_reason_ = strf("throughput stopped improving at batch %d (%.2f vs %.2f samples/s at batch %d; %d flat "
                        "doubling(s)%s)", candidate.batch_size, result.samples_per_second,
                        previous_best->second.samples_per_second, previous_best->first.batch_size, flat_,
                        past_peak ? strf(", at least twice the expected peak %d", expected_peak_).c_str() : "");
    return;
  }
  next_ = candidate.batch_size * 2;
  if (next_ > max_batch_size_) {
    done_ = true;
    stop_reason_ = strf("reached the range maximum, batch %d", max_batch_size_);
  }
}

// The fastest size, or the smallest within its CI (tuners/batch_pick.h).
std::optional<ToldTrial> BatchRamp::best() const {
  auto fastest = Tuner::best();
  if (oom_batch_ > 0)  // a size ran out of memory: the fastest that keeps the margin, if any does
    if (auto safe = fastest_within_margin(told(), memory_limit_bytes_, oom_batch_, margin_)) fastest = safe;
  if (!fastest) return fastest;
  return smallest_as_fast(told(), *fastest);
}

}  // namespace tune
