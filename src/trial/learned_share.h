// Whether a learning-rate trial's model has learned enough for its loss to rank rates: the loss it ended at, as a
// share below an untrained model's. The search lengthens a horizon that leaves its best rate under kLearnedShare
// (engine/rate_stage.cpp), and the table says "not separated yet" of a rate that stayed under it.
#pragma once
#include <optional>

#include "common/model_config.h"

namespace tune {

// A ranking of rates means something only once the model has learned: the chosen rate's loss must lie this share
// below the untrained model's (a language model's first-step loss; a classifier's chance, ln of its labels).
// Issue 33's pretrained classifier ranked rates whose losses all lay within 8% of chance; every full-size language
// model row of the committed table lies 14-46% below its start.
constexpr double kLearnedShare = 0.10;

// The loss an untrained `model` scores: chance (ln of its labels) for a classifier of two or more labels, else
// `first_step_loss` (the loss before any update); 0 (unknown) when that is not positive either.
double untrained_loss(const ModelConfig& model, double first_step_loss);

// 1 - score_loss / untrained; nothing when either is not positive.
std::optional<double> learned_share(double score_loss, double untrained);

}  // namespace tune
