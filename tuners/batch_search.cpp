// Batch-size search: the ramp doubles until a size fails, then bisection narrows the memory boundary.
// The choice keeps a margin below the limit, because a size at the edge can fail in a longer run.
#include "tuners/batch_search.h"

#include "tuners/memory_margin.h"

#include <algorithm>
#include <iterator>

#include "util/table_format.h"

namespace tune {

const OptionList& BatchSearch::options() {
  static const OptionList list{{
      {"margin", 0.10,
       "keep this share of memory free: the chosen size is the fastest whose peak memory is <= (1 - margin) x the "
       "memory limit; with the peak or the limit unknown, the fastest size <= (1 - margin) x the first failing size"},
      {"granularity", 8,
       "the bisection probes multiples of this (sizes below it exactly) and stops when no such size lies between "
       "the last fit and the first failure"},
  }};
  return list;
}

BatchSearch::BatchSearch(const TunerSpace& space)
    : Tuner(StageObjective::throughput, space.max_trials),
      space_(space),
      margin_(options().value(space, "margin")),
      granularity_(std::max(1, static_cast<int>(options().value(space, "granularity")))),
      ramp_(power_of_two_batches(space)) {
  // A range maximum that is no power of two is the ramp's last step.
  if (ramp_.back() < space.max_batch_size) ramp_.push_back(space.max_batch_size);
}

// The ramp's next size until the first failure, then the bisection's midpoint; nothing once done.
std::optional<int> BatchSearch::next_size() const {
  if (first_fail_ == 0) {
    if (ramp_next_ < ramp_.size()) return ramp_[ramp_next_];
    return std::nullopt;
  }
  if (last_fit_ == 0) return std::nullopt;  // even the smallest size failed
  int mid = (last_fit_ + first_fail_) / 2;
  if (mid >= granularity_) mid = mid / granularity_ * granularity_;
  if (mid <= last_fit_ || mid >= first_fail_) return std::nullopt;
  return mid;
}

std::optional<Candidate> BatchSearch::propose() {
  const auto size = next_size();
  if (!size) {
    stop_reason_ = describe_choice();
    return std::nullopt;
  }
  return Candidate{*size, space_.reference_learning_rate, space_.train_steps};
}

void BatchSearch::observe(const Candidate& candidate, const TrialResult& result) {
  if (first_fail_ == 0) ++ramp_next_;
  if (is_usable(result, StageObjective::throughput)) {
    last_fit_ = std::max(last_fit_, candidate.batch_size);
  } else if (first_fail_ == 0 || candidate.batch_size < first_fail_) {
    first_fail_ = candidate.batch_size;
    failure_ = to_string(result.status);
  }
}

bool BatchSearch::is_safe(const ToldTrial& trial) const {
  return keeps_memory_margin(trial, space_.memory_limit_bytes, first_fail_, margin_);
}

std::optional<ToldTrial> BatchSearch::best() const {
  if (auto chosen = fastest_within_margin(told(), space_.memory_limit_bytes, first_fail_, margin_)) return chosen;
  return Tuner::best();  // nothing within the margin: the fastest that fit
}

std::string BatchSearch::describe_choice() const {
  const auto chosen = best();
  if (!chosen) return failure_.empty() ? "no batch size ran" : strf("batch %d failed: %s", first_fail_, failure_.c_str());
  std::string why = first_fail_ == 0
      ? strf("reached the range maximum, batch %d, without a failure", last_fit_)
      : strf("%s boundary between batch %d (fits) and %d (%s)", failure_ == "oom" ? "memory" : "failure", last_fit_,
             first_fail_, failure_.c_str());
  const int64_t peak = chosen->second.peak_memory_bytes;
  if (!is_safe(*chosen))
    return why + strf("; chose %d, the fastest that fit: no size kept a %.0f%% margin", chosen->first.batch_size,
                      100 * margin_);
  if (space_.memory_limit_bytes > 0 && peak > 0)
    return why + strf("; chose %d: peak %.2f GiB, limit %.2f GiB less a %.0f%% margin", chosen->first.batch_size,
                      peak / 1073741824.0, space_.memory_limit_bytes / 1073741824.0, 100 * margin_);
  if (first_fail_ > 0)
    return why + strf("; chose %d: memory limit or peak unknown, %.0f%% below the failing size", chosen->first.batch_size,
                      100 * margin_);
  return why + strf("; chose %d", chosen->first.batch_size);
}

}  // namespace tune
