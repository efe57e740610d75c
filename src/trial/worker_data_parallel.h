// A data-parallel trial of a Python-worker backend (inductor, hf-eager): N worker processes, one per rank, each
// training Hugging Face's module under DistributedDataParallel in one process group (src/trial/data_parallel.py: gloo
// on a CPU, NCCL on a GPU per rank),
// as a user's DDP job trains it; compiled, torch.compile takes the DDP module, and DDPOptimizer splits its graph at
// the buckets' boundaries so each bucket's all-reduce can start during the backward.
// This process drives them: every parallel request goes to all ranks at once (they step in lockstep, each waiting in
// DDP's all-reduce for the others), and in each round rank 0 also runs, while the others wait for their next request,
// a block of its solo member (a model of its own, no DDP: one process's step) and of its unsynced member (its DDP
// module under no_sync, its state put back: DDP without communication). Their order alternates from round to round.
// The figures are libtorch's route's (trial/data_parallel_figures.h) plus the unsynced blocks: the exposed
// communication is a round's parallel step less its unsynced one, and unsynced over solo is what DDP's wrapping (and
// the graph split) costs.
// One rank's failure ends the trial for all with its typed status: a rank's own failure first (it ended, or failed
// outside the collectives), then a hang (a rank still silent 10 s after another's collective failed is killed), then
// the collective errors the others saw. No rank outlives the trial.
#pragma once
#include <string>
#include <vector>

#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// The trial on workers started with worker_argv, training on the global batches at batches_path (ranks x the
// per-rank batch rows each: every rank takes its own rows). Never throws for the trial's own failure.
TrialResult run_worker_data_parallel_trial(const TrialSpec& spec, const std::string& batches_path,
                                           const std::string& dir, const std::vector<std::string>& worker_argv);

}  // namespace tune
