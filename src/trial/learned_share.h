// Whether a learning-rate trial's model has learned enough for its loss to rank rates: the loss it ended at, as a
// share below an untrained model's. The search lengthens a horizon that leaves its best rate under kLearnedShare
// (engine/rate_stage.cpp), and the table says "not separated yet" of a rate that stayed under it.
#pragma once
#include <optional>

#include "common/model_config.h"

namespace tune {

// A ranking of rates means something only once the model has learned: the chosen rate's loss must lie this share
// below the untrained model's (a language model's first-step loss; a classifier's label-prior loss, below).
// Issue 33's pretrained classifier ranked rates whose losses all lay within 8% of chance; every full-size language
// model row of the committed table lies 14-46% below its start.
constexpr double kLearnedShare = 0.10;

// The loss an untrained `model` scores. A classifier of two or more labels: `label_prior_loss`, the loss of
// predicting its training labels' frequencies (a model that learned them and nothing of the text: 0.64 on
// reviews labelled 66/34, where ln 2 is 0.69), or chance (ln of its labels) where the trial recorded none.
// Otherwise `first_step_loss` (the loss before any update); 0 (unknown) when that is not positive either.
double untrained_loss(const ModelConfig& model, double first_step_loss, double label_prior_loss);

// 1 - score_loss / untrained; nothing when either is not positive.
std::optional<double> learned_share(double score_loss, double untrained);

}  // namespace tune
