// Hugging Face's token-level training loss, shared by every family's head: cross entropy over the
// vocabulary (last logits dimension), positions labelled -100 not scored.
#pragma once
#include <torch/torch.h>

namespace tune {

// logits [..., vocab], labels [...] with the same leading shape.
inline torch::Tensor token_cross_entropy(const torch::Tensor& logits, const torch::Tensor& labels) {
  return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}), labels.reshape({-1}),
                                              torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
}

}  // namespace tune
