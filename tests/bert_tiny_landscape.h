// The replay landscape the tuner tests run on: figures like those of bert-tiny on this CPU, and the
// batch-stage and learning-rate-stage search spaces over it.
#pragma once
#include <vector>

#include "engine/replay_landscape.h"
#include "tuners/tuner_space.h"

namespace tune::testing {

constexpr int64_t kGiB = 1LL << 30;
constexpr double kDivergenceLearningRate = 1e-2;  // every rate above it ends in a NaN loss

// Samples/s rising with the batch then flattening (1: 180 ... 64: 1750), 128 out of memory; peak memory
// 400 MiB + 48 MiB per sample; 81 steps of loss per (batch, rate) at 4 rates per decade from 1e-5 to
// 1e-1, with the best rate near 1e-3 (growing as sqrt(batch)) and divergence above 1e-2.
ReplayLandscape bert_tiny_landscape(int64_t memory_limit_bytes = 4 * kGiB);
std::vector<int> bert_tiny_recorded_batches();

// The batch stage: batch 1..256 by throughput, the landscape's memory limit known to the tuner.
TunerSpace batch_stage_space(int64_t memory_limit_bytes = 4 * kGiB);
// The learning-rate stage at batch 64: rates 1e-5..1e-1, the grid's list 1e-5, 3e-5, ..., 1e-1, a
// reference rate 1e-3 at batch 8, 27 train steps.
TunerSpace lr_stage_space();

}  // namespace tune::testing
