// What one trial runs: model, backend, batch, learning rate, steps, limits, seed.
// Serialised to JSON so a trial can run in its own process and be rerun by hand.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/model_config.h"

namespace tune {

// Why the trial runs: throughput trials time steps, lr trials train a fixed count, paired trials (tune regress)
// time `backend` against `paired_backends` in alternating blocks within one process (trial/paired_trial.h).
enum class TrialPurpose { throughput, learning_rate, paired };
std::string to_string(TrialPurpose purpose);

struct TrialSpec {
  ModelConfig model;
  std::string backend = "eager";      // eager | jit | cuda-graph (CUDA only) | inductor | hf-eager (trial/backend_label.h)
  std::string device = "cpu";         // torch device string: cpu, cuda, cuda:1
  std::string precision = "fp32";     // fp32 | bf16 (autocast) | fp16 (autocast + gradient scaler)
  std::string attention = "math";     // math (HF eager attention) | sdpa (fused scaled_dot_product_attention)
  std::string optimizer = "adamw";    // adamw (torch::optim::AdamW) | fused (one fused AdamW kernel, step on device)
  TrialPurpose purpose = TrialPurpose::throughput;
  int seq_len = 128;
  int batch_size = 1;
  double learning_rate = 1e-4;
  uint64_t seed = 0;
  int warmup_steps = 2;        // the first K steps: compile and warm-up, timed apart
  int min_measure_steps = 3;   // steady-state steps timed at least
  int max_measure_steps = 20;  // ... and at most
  double measure_seconds = 20; // stop timing once this much steady-state time is collected
  double ci_halfwidth = 0.02;  // ... or once the median's 95% CI is within +-this share of it
  int train_steps = 0;         // learning-rate trials: optimizer steps whose losses are scored
  int threads = 0;             // libtorch intra-op threads (0: leave libtorch's default)
  int64_t memory_limit_bytes = 0;  // 0: no cap; CPU: growth of the trial process, CUDA: allocator limit
  std::string corpus_path;     // empty: the default corpus (see data/text_corpus.h)
  std::string tokenizer_dir;   // empty: the fallback tokenizer (data/tokenizer.h)
  std::string dataset_path;    // classification CSV (text and label columns); empty: the default
  std::string weights_dir;     // empty: random init; else a HF checkpoint folder (model.safetensors)
  double timeout_seconds = 600;
  std::string step_clock = "wall";  // wall | cpu (CPU device: process CPU time, blind to co-tenants; tune regress)
  double inject_slowdown = 0;  // TEST ONLY (tune regress --inject-slowdown): burn this share of each step's time
  std::string slowed_backend;  // TEST ONLY, paired trials: the backend inject_slowdown applies to (empty: backend)
  std::vector<std::string> paired_backends;  // paired trials: the backends timed against `backend`
  int paired_rounds = 0;       // paired trials: rounds of blocks, after warmup_steps of each backend
  int paired_block_steps = 0;  // paired trials: steps per block
  std::string compile_mode = "default";  // inductor: torch.compile mode (default | max-autotune-no-cudagraphs | reduce-overhead)
  bool dynamic_shapes = false;           // inductor: torch.compile(dynamic=True) instead of static shapes

  // Identifies the measurement: same key, same trial (used to reuse finished trials).
  std::string config_key() const;
};

NLOHMANN_JSON_SERIALIZE_ENUM(TrialPurpose, {{TrialPurpose::throughput, "throughput"},
                                           {TrialPurpose::learning_rate, "learning_rate"},
                                           {TrialPurpose::paired, "paired"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TrialSpec, model, backend, device, precision, attention, optimizer,
    purpose, seq_len,
    batch_size, learning_rate, seed, warmup_steps, min_measure_steps, max_measure_steps, measure_seconds, ci_halfwidth,
    train_steps, threads, memory_limit_bytes, corpus_path, tokenizer_dir, dataset_path, weights_dir, timeout_seconds,
    step_clock, inject_slowdown, slowed_backend, paired_backends, paired_rounds, paired_block_steps, compile_mode,
    dynamic_shapes)

}  // namespace tune
