// Training FLOPs of one optimizer step, from a model's config and its batch shape: the dense matmuls
// (the "6N" term), attention scores and the vocabulary logits, so MFU can be reported per trial.
#pragma once
#include <cstdint>

#include "common/model_config.h"

namespace tune {

// Matmul FLOPs of one training step (forward + backward = 3 x forward), by part.
struct TrainingFlops {
  double dense = 0;      // 6 x (block weights) x tokens: projections and feed-forward layers
  double attention = 0;  // 3 x 4 x q_len x k_len x inner dim per layer: QK^T and attention x V
  double head = 0;       // 3 x 2 x tokens x hidden x classes: vocabulary logits (or the classifier)
  double total() const { return dense + attention + head; }
};

// decoder_len: T5's target length (ignored by encoder-only and decoder-only families).
// Elementwise work (softmax, norms, activations, the optimizer) is left out, as in the usual MFU.
TrainingFlops training_flops(const ModelConfig& config, int batch_size, int seq_len, int decoder_len = 0);

// Weights of the transformer blocks' matmuls and of the embeddings: with biases and norms left out,
// their sum is within a percent or two of a full-size model's parameter count (a test checks it).
int64_t block_matmul_parameters(const ModelConfig& config);
int64_t embedding_parameters(const ModelConfig& config);

// Model FLOPs utilization: achieved FLOP/s over the peak; 0 when the peak is unknown.
double model_flops_utilization(double flops_per_step, double step_seconds, double peak_flops_per_second);

}  // namespace tune
