// The spaces the stages hand their strategies: the batch stage's powers of two, the learning-rate stage's list at
// the chosen batch (the time-to-loss ladder starts from the same).
#pragma once
#include <optional>

#include "engine/search_run.h"
#include "tuners/tuner_space.h"

namespace tune {

// Powers of two up to the range maximum, trained at the ramp's learning rate.
TunerSpace batch_space(const SearchSettings& settings, const SearchRequest& request);

// The chosen batch, the configured learning rates (the fine-tuning list with --weights), full-length trials of
// lr_train_steps; a reference rate from another backend is the scaling rules' (asha's candidates) and where a walk
// starts.
TunerSpace lr_space(const SearchSettings& settings, const SearchRequest& request, int batch_size,
                    const std::optional<RateReference>& reference = std::nullopt);

}  // namespace tune
