// The calibration workload of tune regress: a fixed training step built from stock libtorch modules only (no
// tune model, backend or optimizer code), timed beside the native backend so a native slowdown shows as a ratio.
#pragma once
#include <memory>

#include "compile/train_step.h"
#include "common/model_config.h"
#include "trial/backend_registry.h"

namespace tune {

// A transformer-shaped step sized from `model` (vocabulary, hidden and intermediate sizes, layers): embedding,
// per layer one-head self-attention and a GELU MLP with residuals and layer norms, a vocabulary projection,
// cross-entropy against the batch's own ids, and torch::optim::AdamW. Its op mix resembles the model's, so the
// host's speed (frequency, caches) moves both alike, while a change in tune's code moves only the model.
// Builds its weights from torch's global generator (seed it first), on `device`.
std::unique_ptr<TrainStep> make_calibration_step(const ModelConfig& model, double learning_rate,
                                                 const torch::Device& device);

}  // namespace tune
