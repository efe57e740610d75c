// Runs one trial in this process: build the model, prepare the step with the backend, time the
// first steps apart from the steady state, record throughput, memory and the loss curve.
#pragma once
#include <string>
#include <vector>

#include "data/batch.h"
#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// Never throws for a trial's own failure: out of memory, a compile error, a diverging loss or a
// failing step become a typed result. Internal invariant breaks still abort.
TrialResult run_trial_in_process(const TrialSpec& spec);

// The batches a trial cycles through, in order, on the CPU: the same for every backend (the Python worker gets
// them dumped, data/batch_dump.h). Also describes the data and tokenizer. Throws std::invalid_argument on bad data.
std::vector<Batch> trial_batches(const TrialSpec& spec, std::string* data_description);

// Training FLOPs of one step (models/model_flops.h) for batches shaped like `example`.
double trial_flops_per_step(const TrialSpec& spec, const Batch& example);

}  // namespace tune
