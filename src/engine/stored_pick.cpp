// The pick over every stored trial (stored_pick.h).
#include "engine/stored_pick.h"

#include <algorithm>

#include "tuners/batch_pick.h"
#include "tuners/objective.h"
#include "util/table_format.h"

namespace tune {

std::optional<ToldTrial> overruling_stored_trial(const std::vector<StoredTrial>& trials, double chosen_samples_per_second) {
  std::vector<ToldTrial> told;
  for (const auto& t : trials)
    if (t.spec.purpose == TrialPurpose::throughput && t.spec.repeat == 0 && !t.superseded)
      told.push_back({Candidate{t.spec.batch_size, t.spec.learning_rate, 0}, t.result});
  const auto fastest = best_trial(told, StageObjective::throughput);
  if (!fastest || !faster_beyond_noise(*fastest, chosen_samples_per_second)) return std::nullopt;
  return smallest_as_fast(told, *fastest);
}

std::optional<ToldTrial> overruling_stored_trial(const std::vector<StoredTrial>& trials, const BestConfig& best) {
  const BatchLimit limit = best.stop.batch_limit;
  if (limit == BatchLimit::memory || limit == BatchLimit::failure) return std::nullopt;
  return overruling_stored_trial(trials, best.samples_per_second);
}

BestConfig with_speed_of(const BestConfig& best, const ToldTrial& trial) {
  const TrialResult& r = trial.second;
  const double old_flops_per_second = best.step_time > 0 ? best.flops_per_step / best.step_time : 0;
  BestConfig moved = best;
  moved.batch_size = trial.first.batch_size;
  moved.samples_per_second = r.samples_per_second;
  moved.step_time = r.step_time_median;
  moved.step_time_ci_low = r.step_time_ci_low;
  moved.step_time_ci_high = r.step_time_ci_high;
  moved.compile_overhead_seconds = r.compile_overhead_seconds;
  moved.peak_memory_bytes = r.peak_memory_bytes;
  moved.flops_per_step = r.flops_per_step;
  moved.mfu = old_flops_per_second > 0 && r.step_time_median > 0
                  ? best.mfu * (r.flops_per_step / r.step_time_median) / old_flops_per_second
                  : 0;
  return moved;
}

bool ramp_cut_below(const BestConfig& best, const std::vector<int>& sizes_tried, int other_batch) {
  const BatchLimit limit = best.stop.batch_limit;
  if (best.batch_size >= other_batch || (limit != BatchLimit::budget && limit != BatchLimit::trials)) return false;
  return std::none_of(sizes_tried.begin(), sizes_tried.end(), [&](int size) { return size >= other_batch; });
}

std::string describe_ramp_cut(const std::string& backend, const BestConfig& best, const std::string& other_backend,
                              int other_batch) {
  const char* why = best.stop.batch_limit == BatchLimit::trials ? "max trials" : "budget";
  return strf("%s's batch ramp stopped at %d (%s), below %s's %d", backend.c_str(), best.batch_size, why,
              other_backend.c_str(), other_batch);
}

std::vector<int> throughput_sizes_tried(const std::vector<StoredTrial>& trials) {
  std::vector<int> sizes;
  for (const auto& t : trials)
    if (t.spec.purpose == TrialPurpose::throughput && t.spec.repeat == 0 && !t.superseded)
      sizes.push_back(t.spec.batch_size);
  return sizes;
}

}  // namespace tune
