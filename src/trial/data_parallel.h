// A data-parallel trial (TrialSpec::distributed.ranks > 1): N rank processes train the model together, each on its
// own rows of a global batch of N x batch_size (the batch is per rank), gradients averaged after every backward by
// a bucketed all-reduce overlapped with it (compile/gradient_reducer.h, DDP's way) over a c10d process group (gloo on
// a CPU; NCCL on GPUs, rank K on the K-th GPU from the spec's, trial/nccl_group.h). Rank 0 is the trial process:
// it starts ranks 1..N-1 (`tune trial --rank K`, in its process group, tied to it), and in alternating blocks
// times all ranks together and itself alone on a model of its own (no communication, the others waiting), so each
// round gives a paired scaling efficiency. A rank that runs out of memory, crashes, is killed or sends nothing for
// collective_timeout_seconds ends the trial for all with its typed status; rank 0 kills and reaps whatever rank is
// still running, so none outlives the trial.
// The libtorch backends that have a point between backward and update (eager, jit) run this way; the Python worker's
// backends run HF's module under DDP (trial/worker_data_parallel.h). On a GPU the steps are timed to the device's
// end (synchronized) and the exposed communication by events on the compute stream.
#pragma once
#include <string>

#include "trial/data_parallel_figures.h"
#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// The trial, from rank 0 (run_trial_in_process calls it). Its result: the losses averaged over ranks (what one
// process at the global batch trains), samples/s over all ranks, and result.data_parallel's figures.
TrialResult run_data_parallel_trial(const TrialSpec& spec, const std::string& work_dir);

// Rank `rank`'s process (`tune trial --rank K --spec FILE --out FILE`): trains its share in lockstep with the
// others and writes its result (its losses and peak memory, or how it failed) to `out`. Its exit code.
int run_data_parallel_rank(const TrialSpec& spec, int rank, const std::string& work_dir, const std::string& out);

}  // namespace tune
