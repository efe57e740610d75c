// Builds a trainable model from its config: the module (for parameters and devices) and its loss.
// Backends see only this handle, so a new family plugs in here without touching them.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>

#include "common/batch.h"
#include "common/model_config.h"

namespace tune {

struct TrainableModel {
  std::shared_ptr<torch::nn::Module> module;
  std::function<torch::Tensor(const Batch&)> loss;    // the family's HF training loss
  std::function<torch::Tensor(const Batch&)> logits;  // the HF head's logits (parity tests)
  // Checkpoint entries that are not parameters here and are expected (tied copies, HF buffers).
  std::vector<std::string> ignored_checkpoint_suffixes;
};

// Seeds torch's generator with `seed` before building, so weights are reproducible. `attention` picks every
// attention layer's kernel: "math" (HF's eager matmul/softmax) or "sdpa" (torch's fused scaled_dot_product_attention).
// Throws std::invalid_argument for a family this build does not implement or another attention name.
TrainableModel build_model(const ModelConfig& config, uint64_t seed, const std::string& attention = "math");

int64_t parameter_count(const torch::nn::Module& module);

// Builds the model and, when weights_dir is not empty, loads a HF checkpoint into it (--weights).
TrainableModel build_model_with_weights(const ModelConfig& config, uint64_t seed, const std::string& weights_dir,
                                        const std::string& attention = "math");

}  // namespace tune
