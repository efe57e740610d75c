// The memory margin rule of the batch strategies (batch_ramp after an out-of-memory size, batch_search always).
#include "tuners/memory_margin.h"

#include <algorithm>
#include <iterator>

#include "tuners/objective.h"

namespace tune {

bool keeps_memory_margin(const ToldTrial& trial, int64_t memory_limit_bytes, int first_failed_batch, double margin) {
  const int64_t peak = trial.second.peak_memory_bytes;
  if (memory_limit_bytes > 0 && peak > 0)
    return static_cast<double>(peak) <= (1 - margin) * static_cast<double>(memory_limit_bytes);
  if (first_failed_batch > 0) return trial.first.batch_size <= (1 - margin) * first_failed_batch;
  return true;
}

std::optional<ToldTrial> fastest_within_margin(const std::vector<ToldTrial>& told, int64_t memory_limit_bytes,
                                               int first_failed_batch, double margin) {
  std::vector<ToldTrial> safe;
  std::copy_if(told.begin(), told.end(), std::back_inserter(safe), [&](const ToldTrial& t) {
    return keeps_memory_margin(t, memory_limit_bytes, first_failed_batch, margin);
  });
  return best_trial(safe, StageObjective::throughput);
}

}  // namespace tune
