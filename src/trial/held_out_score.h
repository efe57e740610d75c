// A classifier's trained model scored on its held-out rows (data/held_out.h) in this process: the learning-rate
// trial's score for a libtorch backend (the Python worker scores its own module the same way).
#pragma once
#include <vector>

#include "common/batch.h"
#include "models/model_factory.h"
#include "trial/trial_result.h"

namespace tune {

// The model in eval mode (no dropout), without gradients, in fp32 (its parameters' own precision, whatever the
// trial trained under), on every held-out batch; back in train mode after.
HeldOutScore score_held_out(const TrainableModel& model, const std::vector<Batch>& batches);

// The entropy of the batches' labels' frequencies (data/held_out.h's label_entropy).
double batches_label_entropy(const std::vector<Batch>& batches);

}  // namespace tune
