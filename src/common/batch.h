// One training batch as tensors: the inputs every family's loss takes, plus labels.
// Shapes are static ([batch, seq_len]) so compiled steps never see a new shape mid-trial.
#pragma once
#include <torch/torch.h>

#include <vector>

namespace tune {

// A tensor a task does not use stays undefined (e.g. token_type_ids for GPT-2, decoder ids for BERT).
struct Batch {
  torch::Tensor input_ids;          // int64 [batch, seq]
  torch::Tensor token_type_ids;     // int64 [batch, seq]
  torch::Tensor attention_mask;     // int64 [batch, seq], 1 = attend
  torch::Tensor labels;             // int64 [batch, seq] (-100 = not scored), or [batch] for classification
  torch::Tensor decoder_input_ids;  // int64 [batch, target_len]: seq2seq (T5) only

  // The defined tensors, in field order (what a traced graph takes as inputs).
  std::vector<torch::Tensor> tensors() const {
    std::vector<torch::Tensor> out;
    for (const auto* t : fields())
      if (t->defined()) out.push_back(*t);
    return out;
  }
  // A batch with this one's layout (which fields are defined) filled from `values`, in field order.
  Batch with_tensors(const std::vector<torch::Tensor>& values) const {
    Batch b;
    size_t next = 0;
    auto src = fields();
    auto dst = b.mutable_fields();
    for (size_t i = 0; i < src.size(); ++i)
      if (src[i]->defined()) *dst[i] = values.at(next++);
    return b;
  }
  // Rows [start, start + count) of every tensor: a data-parallel rank's share of a global batch.
  Batch rows(int64_t start, int64_t count) const {
    std::vector<torch::Tensor> share;
    for (const auto& t : tensors()) share.push_back(t.narrow(0, start, count).contiguous());
    return with_tensors(share);
  }
  Batch to(const torch::Device& device) const {
    std::vector<torch::Tensor> moved;
    for (const auto& t : tensors()) moved.push_back(t.to(device));
    return with_tensors(moved);
  }

 private:
  std::vector<const torch::Tensor*> fields() const {
    return {&input_ids, &token_type_ids, &attention_mask, &labels, &decoder_input_ids};
  }
  std::vector<torch::Tensor*> mutable_fields() {
    return {&input_ids, &token_type_ids, &attention_mask, &labels, &decoder_input_ids};
  }
};

}  // namespace tune
