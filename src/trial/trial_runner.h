// Runs one trial from this process: build the model, prepare the step with the backend (or start the Python
// worker that does), time the first steps apart from the steady state, record throughput, memory and losses.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "compile/train_step.h"
#include "common/batch.h"
#include "trial/measurement.h"
#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// Never throws for a trial's own failure: out of memory, a compile error, a diverging loss or a
// failing step become a typed result. Internal invariant breaks still abort. A Python-worker backend
// (inductor, hf-eager) runs its steps in a worker this process starts; its files (the batches, a cold Inductor
// cache) go to work_dir (empty: the current folder) and are removed after the trial.
TrialResult run_trial_in_process(const TrialSpec& spec, const std::string& work_dir = "");

// The batches a trial cycles through, in order, on the CPU: the same for every backend (the Python worker gets
// them dumped, data/batch_dump.h). Also describes the data and tokenizer. Throws std::invalid_argument on bad data.
// held_out (when given) receives the held-out rows' batches (data/held_out.h): empty where the spec holds none out.
std::vector<Batch> trial_batches(const TrialSpec& spec, std::string* data_description,
                                 std::vector<Batch>* held_out = nullptr);

// Training FLOPs of one step (models/model_flops.h) for batches shaped like `example`.
double trial_flops_per_step(const TrialSpec& spec, const Batch& example);

// The parts a trial is made of, shared with paired trials (trial/paired_trial.h):
// The spec's batch pool, moved to its device (logs where the data came from).
// held_out (when given) receives the held-out batches, moved there too.
std::vector<Batch> trial_batch_pool(const TrialSpec& spec, std::vector<Batch>* held_out = nullptr);
// The spec's seeded model and its backend's training step (slowed down when the spec injects it), not prepared;
// sets r.parameter_count, and `kept` (when given) to the model the step trains. Throws std::invalid_argument for a
// bad model or backend.
std::unique_ptr<TrainStep> build_trial_step(const TrialSpec& spec, TrialResult& r, TrainableModel* kept = nullptr);
// Prepares (compiles) the step on `example`; false with r set to the compile error.
bool prepare_trial_step(const TrialSpec& spec, TrainStep& step, const Batch& example, TrialResult& r);
// libtorch's intra-op threads for a trial (0 leaves them); the inter-op pool is sized to 1 once per process.
void set_trial_threads(int threads);
// Whether a step's exception means it ran out of memory (oom) rather than crashed.
bool is_out_of_memory(const std::exception& e);

}  // namespace tune
