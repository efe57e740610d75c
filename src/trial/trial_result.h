// What one trial measured: status, step times, throughput, memory, loss curve, compile cost.
// Written as JSON by the trial process and stored as-is in SQLite.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/trial_status.h"

namespace tune {

// A status in JSON is its name (trial_status.h); an unknown name throws std::invalid_argument quoting it, so no
// result or reference is ever read as "ok" by default.
void to_json(nlohmann::json& j, TrialStatus status);
void from_json(const nlohmann::json& j, TrialStatus& status);

// One backend's part of a paired trial (TrialPurpose::paired), in the order spec.backend, spec.paired_backends.
// A compiled backend that fails leaves the later rounds to the others; when spec.backend fails, the trial does.
struct PairedPart {
  std::string backend;
  std::string observer;          // observer trials: the tool attached to this part ("" for the bare step)
  std::string observer_summary;  // what the tool did (step_observers.h's finish)
  std::string observer_caveat;   // what it could not do on this step (step_observers.h's caveat)
  std::string compile_info;      // the backend's account: graphs, graph breaks, recompiles (what a tool did to them)
  TrialStatus status = TrialStatus::ok;
  std::string error_stage;
  std::string error_message;
  double compile_seconds = 0;
  double inject_slowdown = 0;         // TEST ONLY
  std::vector<double> block_times;    // per round: this backend's block, seconds per step (its mean)
  std::vector<double> losses;         // loss at every step, warm-up included
  bool ok() const { return status == TrialStatus::ok; }
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PairedPart, backend, status, error_stage, error_message,
    compile_seconds, inject_slowdown, block_times, losses, observer, observer_summary, compile_info,
    observer_caveat)

// A data-parallel trial's own figures (trial/data_parallel.h); ranks 0 in any other trial.
struct DataParallelPart {
  int ranks = 0;
  int per_rank_batch = 0;
  std::string comm_backend;             // gloo, nccl
  int buckets = 0;  // all-reduce buckets per step (compiled in the Python worker: the buckets DDPOptimizer split at)
  double bucket_cap_mb = 0;
  // Per round, seconds per step: rank 0 training alone (no communication), and all ranks together. Each round's
  // scaling efficiency is solo over parallel (N x batch / parallel time against N x batch / solo time).
  std::vector<double> solo_block_times;
  std::vector<double> parallel_block_times;
  // Per round, rank 0's DDP module under no_sync (the Python worker's route only; empty in libtorch's): DDP's
  // wrapping and, compiled, its graph split, without communication.
  std::vector<double> unsynced_block_times;
  // Per parallel step, rank 0's wait for the all-reduce after backward; in the Python worker's route, per round, the
  // parallel step less the unsynced one.
  std::vector<double> exposed_comm_seconds;
  std::vector<int64_t> rank_peak_memory_bytes;  // each rank's, in rank order
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DataParallelPart, ranks, per_rank_batch, comm_backend, buckets,
    bucket_cap_mb, solo_block_times, parallel_block_times, unsynced_block_times, exposed_comm_seconds,
    rank_peak_memory_bytes)

struct TrialResult {
  TrialStatus status = TrialStatus::crashed;
  std::string error_stage;            // e.g. "compile", "step", "build_model" (empty when ok)
  std::string error_message;
  double compile_seconds = 0;         // preparing the step (trace/capture; nothing for eager)
  double first_step_seconds = 0;      // the first step: the executor's first-run optimization, allocator warm-up
  double later_warmup_seconds = 0;    // warm-up steps 2..K
  double first_steps_seconds = 0;     // all K warm-up steps (first + later)
  double compile_overhead_seconds = 0;// compile + first K steps - K * steady step time
  double step_time_median = 0;        // steady state, seconds
  double step_time_ci_low = 0;        // 95% CI of the median (order statistics; min/max under 6 steps)
  double step_time_ci_high = 0;
  double step_time_cv = 0;            // coefficient of variation of steady-state steps
  std::string steady_state_stop;      // why timing stopped: CI reached, time cap or step cap
  std::vector<double> step_times;     // steady-state step times, seconds
  double samples_per_second = 0;
  double tokens_per_second = 0;
  int64_t peak_memory_bytes = 0;      // resident high-water mark of the trial process (CPU)
  std::vector<double> losses;         // loss at every optimizer step, in order
  // Learning-rate trials: the mean training loss of the last steps, or a classifier's held-out loss where it has
  // held-out rows (below).
  double score_loss = 0;
  // Classification: the loss of predicting the scored labels' frequencies (their entropy: the held-out rows' where
  // the score is theirs, else the trained-on rows'), what a model that learned nothing from the text scores; 0 for
  // other tasks (trial/learned_share.h).
  double label_prior_loss = 0;
  // Classification with held-out rows (data/held_out.h): the trained model scored on them (eval mode, fp32).
  int64_t held_out_rows = 0;
  double held_out_loss = 0;       // mean cross-entropy
  double held_out_accuracy = 0;   // share of rows whose highest logit is their label
  int64_t parameter_count = 0;
  double flops_per_step = 0;          // training matmul FLOPs (models/model_flops.h), for MFU
  std::vector<std::string> warnings;  // libtorch warnings during the trial (graph breaks, syncs), with counts
  std::string compile_info;           // backend's own account: graphs, fusion groups, ...
  std::map<std::string, double> compile_parts;  // inductor: seconds per compile phase (dynamo_trace, ...)
  // What the compile found in a persistent compile cache (Inductor's, python_worker.py): "cold" (compiled every
  // graph), "warm" (every graph from the cache), "partly warm", "unused"; empty for a backend without one (eager,
  // jit and cuda-graph compile in each process again) and in results stored before it was recorded.
  std::string compile_cache;
  std::string observer_summary;       // a trial with a step observer: what the tool did (step_observers.h)
  std::string observer_caveat;        // ... and what it could not do on this step
  double wall_seconds = 0;            // the whole trial, as seen by the parent
  // Paired trials: every backend's part, spec.backend's first (the fields above describe spec.backend alone).
  std::vector<PairedPart> paired;
  DataParallelPart data_parallel;

  bool ok() const { return status == TrialStatus::ok; }
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TrialResult, status, error_stage, error_message, compile_seconds,
    first_step_seconds, later_warmup_seconds, first_steps_seconds, compile_overhead_seconds, step_time_median,
    step_time_ci_low, step_time_ci_high, step_time_cv, steady_state_stop, step_times, samples_per_second,
    tokens_per_second, peak_memory_bytes, losses, score_loss, label_prior_loss, held_out_rows, held_out_loss,
    held_out_accuracy, parameter_count, flops_per_step, warnings, compile_info, wall_seconds, compile_parts, paired,
    compile_cache, observer_summary, observer_caveat, data_parallel)

// A classifier's trained model scored on its held-out rows (data/held_out.h), by the trial (trial/held_out_score.h)
// or by the Python worker, which sends these sums.
struct HeldOutScore {
  int64_t rows = 0;
  double loss_sum = 0;  // cross-entropy summed over the rows
  int64_t correct = 0;  // rows whose highest logit is their label
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HeldOutScore, rows, loss_sum, correct)

// The score becomes the trial's: held_out_* set, score_loss the held-out loss, and label_prior_loss the entropy of
// the held-out labels (the untrained loss a learned share is measured from). Checks that it covers a row.
void apply_held_out_score(const HeldOutScore& score, double held_out_label_entropy, TrialResult& r);

// A failed result with its stage and message.
TrialResult failed_result(TrialStatus status, const std::string& stage, const std::string& message);

// A learning-rate trial's score: the mean of the last quarter of its losses (at least 2 steps), less
// fooled by one noisy batch than the last loss; 0 for no losses.
double tail_mean_loss(const std::vector<double>& losses);
// The number of last losses that score averages over: a quarter of them, at least 2.
size_t tail_window(size_t losses);
// The lowest mean over any tail_window-long run of consecutive losses: a smoothed minimum (one step's loss at a
// small batch is one noisy sample's); 0 for no losses.
double lowest_window_mean(const std::vector<double>& losses);

}  // namespace tune
