// The torch-free part of a data-parallel trial, shared by both of its routes (libtorch's, trial/data_parallel.h, and
// the Python worker's DDP, trial/worker_data_parallel.h): what a spec may ask, the steps every rank runs, the result's
// summary, and what it says: its scaling efficiency over the paired rounds (rank 0 alone against all ranks), the
// share of a step spent waiting for communication, and the sentence a row says.
#pragma once
#include <string>
#include <vector>

#include "stats/paired_ratio.h"
#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// Throws std::invalid_argument naming what a data-parallel spec cannot be (under 2 ranks, a paired purpose, an
// observer, a communication backend other than gloo on a CPU and nccl on CUDA, bad sizes).
void check_data_parallel_spec(const TrialSpec& spec);

// The communication backend a spec's ranks use: its own, or for "auto" gloo on a CPU and nccl on CUDA.
std::string comm_backend(const TrialSpec& spec);

// The parallel steps every rank runs in lockstep: the warm-up, then `rounds` blocks of `block` steps, each beside
// rank 0's blocks alone; a learning-rate trial runs its train steps with no rounds.
struct DataParallelSchedule {
  int warmup = 0, rounds = 0, block = 0;
  explicit DataParallelSchedule(const TrialSpec& spec);
};

// The spec with its global batch (ranks x the per-rank batch): what one process would train on.
TrialSpec global_batch_spec(const TrialSpec& spec);

// The device rank `rank` trains on: a CPU rank shares the CPU; on CUDA, one GPU per rank (NCCL runs one rank per
// device), counted from the spec's ("cuda" or "cuda:0": rank K on cuda:K; "cuda:2": rank K on cuda:2+K).
std::string rank_device(const std::string& device, int rank);

// Throws std::invalid_argument where `ranks` ranks from `device` cannot each have a GPU of the `gpus` there (NCCL
// runs one rank per GPU); CPU ranks share the CPU.
void check_rank_gpus(const std::string& device, int ranks, int gpus);

// Rank `rank`'s own spec: its rank, its device (rank_device), and its share of the instance's threads (at least
// one) and memory cap (a CPU's; a GPU rank's cap applies to its own device).
TrialSpec rank_share_spec(const TrialSpec& spec, int rank);

// A learning-rate trial's parallel steps (its schedule is all warm-up: no rounds) past its first warmup_steps, timed
// as a one-process rate trial's are: its step times, so it gives samples/s over all ranks (it had read 0).
void keep_rate_trial_steps(const TrialSpec& spec, const std::vector<double>& parallel_step_times, TrialResult& r);

// A finished data-parallel trial's result from its ranks' parallel losses (rank order) and r.data_parallel's block
// times: each step's loss averaged over the ranks (a non-finite one ends it as diverged), the parallel blocks'
// steps as the trial's (samples/s over all ranks), its peak memory the largest rank's, its status ok and its summary
// (summarise_steps).
void summarise_data_parallel(const TrialSpec& spec, const std::vector<std::vector<double>>& rank_losses, TrialResult& r);

// Per round, solo over parallel seconds per step: samples/s of N ranks over N times one rank's at the same batch
// (1: perfect scaling). Their geometric mean and 95% interval; unconfirmed under two rounds.
PairedRatio scaling_efficiency(const DataParallelPart& d);

// The median exposed communication (rank 0's wait for the all-reduce after backward; in the Python worker's DDP, a
// round's parallel step less its unsynced step) over the median parallel step time: the share of a step the overlap
// did not hide. 0 without figures.
double exposed_comm_share(const DataParallelPart& d);

// Per round, rank 0's unsynced step (its DDP module under no_sync: DDP's wrapping, and for a compiled step the graph
// split at bucket boundaries, without communication) over its solo step (no DDP): what DDP costs beside its
// communication. No rounds where the trial has no unsynced blocks (libtorch's route has none).
PairedRatio ddp_wrapping_cost(const DataParallelPart& d);

// "2 ranks x batch 4 (gloo): scaling efficiency 0.81 (95% CI 0.75-0.88, 4 rounds), communication not hidden by
// the backward 9% of a step, peak memory per rank 412-415 MiB"; "" for a trial that is not data-parallel.
std::string describe_data_parallel(const DataParallelPart& d);

}  // namespace tune
