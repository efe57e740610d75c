// The stages' spaces from the settings and the request.
#include "engine/search_spaces.h"

#include <algorithm>

namespace tune {

TunerSpace batch_space(const SearchSettings& settings, const SearchRequest& request) {
  TunerSpace space;
  space.objective = StageObjective::throughput;
  space.min_batch_size = settings.min_batch_size;
  space.max_batch_size = settings.max_batch_size;
  space.reference_learning_rate = settings.ramp_learning_rate;
  space.memory_limit_bytes = static_cast<int64_t>(request.instance.memory_bytes * settings.memory_fraction);
  space.max_trials = settings.max_trials;
  space.options = settings.options_for(settings.batch_tuner);
  return space;
}

TunerSpace lr_space(const SearchSettings& settings, const SearchRequest& request, int batch_size,
                    const std::optional<RateReference>& reference) {
  TunerSpace space;
  space.objective = StageObjective::loss;
  space.min_batch_size = space.max_batch_size = batch_size;
  const std::vector<double>& rates = settings.start_learning_rates(!request.weights_dir.empty());
  space.learning_rates = rates;
  space.min_learning_rate = *std::min_element(rates.begin(), rates.end());
  space.max_learning_rate = *std::max_element(rates.begin(), rates.end());
  space.edge_factor = settings.learning_rate_edge_factor;
  space.rate_bound_low = settings.learning_rate_bounds.front();
  space.rate_bound_high = settings.learning_rate_bounds.back();
  space.train_steps = settings.lr_train_steps;
  space.min_train_steps = settings.warmup_steps + 1;  // a trial runs its warm-up and at least one more step
  space.max_trials = settings.max_trials;
  space.options = settings.options_for(settings.lr_tuner);
  if (reference) {
    space.reference_batch_size = reference->batch_size;
    space.reference_learning_rate = reference->learning_rate;
  }
  return space;
}

}  // namespace tune
