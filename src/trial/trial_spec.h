// What one trial runs, by role: the model and the candidate (batch, rate, steps), how the step is built
// (backend and its knobs), how it is timed, what it trains on, and the paired-trial and test-only settings.
// Serialised to flat JSON (spec.json) so a trial can run in its own process and be rerun by hand.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/data_settings.h"
#include "common/model_config.h"
#include "trial/backend_registry.h"

namespace tune {

// Why the trial runs: throughput trials time steps, lr trials train a fixed count, paired trials (tune regress)
// time `backend` against `paired_backends` in alternating blocks within one process (trial/paired_trial.h).
enum class TrialPurpose { throughput, learning_rate, paired };
std::string to_string(TrialPurpose purpose);
// Throws std::invalid_argument quoting text that names no purpose.
TrialPurpose parse_trial_purpose(const std::string& text);

// The training step: which backend builds it, where, in what precision, and the compile knobs.
struct StepSettings {
  std::string backend = kNativeBackend;  // a registered backend's name (trial/backend_registry.h)
  std::string device = "cpu";         // torch device string: cpu, cuda, cuda:1
  std::string precision = "fp32";     // fp32 | bf16 (autocast) | fp16 (autocast + gradient scaler)
  std::string attention = "math";     // math (HF eager attention) | sdpa (fused scaled_dot_product_attention)
  std::string optimizer = "adamw";    // adamw (torch::optim::AdamW) | fused (one fused AdamW kernel, step on device)
  std::string compile_mode = kDefaultCompileMode;  // inductor: torch.compile mode (the registry's compile modes)
  bool dynamic_shapes = false;           // inductor: torch.compile(dynamic=True) instead of static shapes
  // A tool attached to every step (trial/observer_registry.h: "profiler", "tensor-stats:10"); empty: none.
  std::string observer;
};

// How steps are timed: warm-up apart, then steady state until the median's CI is tight or a cap is hit.
struct MeasureSettings {
  int warmup_steps = 2;        // the first K steps: compile and warm-up, timed apart
  int min_measure_steps = 3;   // steady-state steps timed at least
  int max_measure_steps = 20;  // ... and at most
  double measure_seconds = 20; // stop timing once this much steady-state time is collected
  double ci_halfwidth = 0.02;  // ... or once the median's 95% CI is within +-this share of it
  std::string step_clock = "wall";  // wall | cpu (CPU device: process CPU time, blind to co-tenants; tune regress)
};

// Paired trials (TrialPurpose::paired): the backends timed against `backend`, in rounds of blocks; then `backend`
// with each observer attached (an observer trial: the same step with and without the tool).
struct PairedSettings {
  std::vector<std::string> backends;
  std::vector<std::string> observers;
  int rounds = 0;       // rounds of blocks, after warmup_steps of each backend
  int block_steps = 0;  // steps per block
};

// Data-parallel trials (trial/data_parallel.h): `ranks` processes, each training the spec's batch (per rank) on its
// own rows, gradients averaged by a bucketed all-reduce as DDP does it; the throughput over all ranks, and rank 0
// alone in alternating blocks (its scaling efficiency). 1: an ordinary trial.
struct DistributedSettings {
  int ranks = 1;
  std::string comm_backend = "auto";     // auto: gloo on a CPU, nccl on CUDA
  double bucket_cap_mb = 25;             // DDP's default bucket size
  double collective_timeout_seconds = 120;  // a rank that sends nothing for this long ends the trial (a hang)
  int scaling_rounds = 4;                // rounds of (rank 0 alone, all ranks) blocks
  int block_steps = 3;                   // steps per block
  int rank = 0;                          // which rank this process is (set in the rank processes' specs; not keyed)
};

// TEST ONLY (tune regress --inject-slowdown): burn a share of each step's time, to prove a check catches it.
struct TestHooks {
  double inject_slowdown = 0;
  std::string slowed_backend;  // paired trials: the backend it applies to (empty: backend)
  int observer_fails_at_step = 0;  // the observer throws at this step (1-based; 0: never): a fault-matrix row
  // Data-parallel trials: rank `failing_rank` fails at its step 3 ("oom": throws out of memory, "kill": SIGKILLs
  // itself, "hang": blocks every signal and sleeps); "": none. The fault matrix's rank rows and the tests.
  std::string rank_fault;
  int failing_rank = 1;
};

struct TrialSpec {
  ModelConfig model;
  TrialPurpose purpose = TrialPurpose::throughput;
  int seq_len = 128;
  int batch_size = 1;
  double learning_rate = 1e-4;
  uint64_t seed = 0;
  int train_steps = 0;             // learning-rate trials: optimizer steps whose losses are scored
  // The rate over the trial's steps (trial/lr_schedule.h): linear warm-up over lr_warmup_steps, then constant
  // or cosine decay to 0 at its last step; learning_rate is the peak.
  std::string lr_schedule = "constant";
  int lr_warmup_steps = 0;
  std::string weights_dir;         // empty: random init; else a HF checkpoint folder (model.safetensors)
  StepSettings step;
  MeasureSettings measure;
  DataSettings data;
  int threads = 0;                 // libtorch intra-op threads (0: leave libtorch's default)
  int64_t memory_limit_bytes = 0;  // 0: no cap; CPU: growth of the trial process, CUDA: allocator limit
  double timeout_seconds = 600;
  // The identity (path, size, modification time) of the weights, corpus, tokenizer and dataset files when the
  // search made the spec (util/file_identity.h); "" in trials stored before it. Not in the key: a stored trial whose
  // identity differs was measured on files since replaced at the same paths, and runs again in its place.
  std::string inputs_identity;
  // The n-th repeat of one throughput measurement in a new process (confirm_stage.cpp's rounds 1, 2, ..., and -2
  // the first trial of its same-batch rounds; -1 the screen's second round, screening.h); 0: the search's own
  // trial. Keyed: a repeat is a trial of its own.
  int repeat = 0;
  // A compile cache the trial shares with the study's other trials of its shape (Inductor's FX-graph and
  // AOTAutograd caches): the first compiles cold into it, later ones find their graphs warm. Empty: a fresh cache
  // per trial. Not in the key: where a trial compiled does not change what it measures in its steps.
  std::string compile_cache_dir;
  // Carrying a compile to another process or machine (torch.compiler.save_cache_artifacts, "Mega-Cache"): save
  // writes the trial's compile artifacts into its folder (compile-artifacts.bin and a sidecar naming torch, Python,
  // machine and a digest); compile_artifacts names such a file to load into a fresh cache before compiling (one
  // from another torch, Python or device, or changed, is not loaded: the compile is cold and says why). Not in the
  // key, as compile_cache_dir.
  bool save_compile_artifacts = false;
  std::string compile_artifacts;
  PairedSettings paired;
  DistributedSettings distributed;
  TestHooks test;

  // Identifies the measurement: same key, same trial (used to reuse finished trials). Made of the fields
  // spec_key_fields() names as defining the result.
  std::string config_key() const;
};

// Every field of a spec's JSON and whether it defines the result: always; always, at three significant figures
// (a number that differs by a few bytes between machines of one instance); only when it differs from its default
// (fields added later, so keys stored before them stay valid); only in a paired trial; or never.
enum class KeyRule { always, rounded, unless_default, paired_only, never };
struct KeyField {
  const char* name;
  KeyRule rule;
};
const std::vector<KeyField>& spec_key_fields();

// A purpose in JSON is its name; an unknown one throws (never read as throughput by default).
void to_json(nlohmann::json& j, TrialPurpose purpose);
void from_json(const nlohmann::json& j, TrialPurpose& purpose);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StepSettings, backend, device, precision, attention, optimizer,
                                                compile_mode, dynamic_shapes, observer)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MeasureSettings, warmup_steps, min_measure_steps, max_measure_steps,
                                                measure_seconds, ci_halfwidth, step_clock)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TestHooks, inject_slowdown, slowed_backend, observer_fails_at_step,
                                                rank_fault, failing_rank)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DistributedSettings, ranks, comm_backend, bucket_cap_mb,
                                                collective_timeout_seconds, scaling_rounds, block_steps, rank)
// JSON names paired_backends, paired_observers, paired_rounds, paired_block_steps (flat in spec.json).
void to_json(nlohmann::json& j, const PairedSettings& p);
void from_json(const nlohmann::json& j, PairedSettings& p);
// One flat object: the spec's own fields and every group's, as spec.json has always been written.
void to_json(nlohmann::json& j, const TrialSpec& spec);
void from_json(const nlohmann::json& j, TrialSpec& spec);

}  // namespace tune
