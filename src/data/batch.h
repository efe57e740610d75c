// One training batch as tensors: the inputs every family's loss takes, plus labels.
// Shapes are static ([batch, seq_len]) so compiled steps never see a new shape mid-trial.
#pragma once
#include <torch/torch.h>

#include <vector>

namespace tune {

struct Batch {
  torch::Tensor input_ids;       // int64 [batch, seq]
  torch::Tensor token_type_ids;  // int64 [batch, seq]
  torch::Tensor attention_mask;  // int64 [batch, seq], 1 = attend
  torch::Tensor labels;          // int64 [batch, seq], -100 = not scored

  std::vector<torch::Tensor> tensors() const { return {input_ids, token_type_ids, attention_mask, labels}; }
  Batch to(const torch::Device& device) const {
    return {input_ids.to(device), token_type_ids.to(device), attention_mask.to(device), labels.to(device)};
  }
};

}  // namespace tune
