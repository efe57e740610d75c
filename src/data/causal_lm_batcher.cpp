// Causal-LM batches from a token stream, seeded and deterministic (std::mt19937_64 only),
// so every backend of one study trains on exactly the same batches.
#include "data/causal_lm_batcher.h"

#include <stdexcept>

#include "data/token_window.h"

namespace tune {

CausalLmBatcher::CausalLmBatcher(std::vector<int64_t> token_ids, const ModelConfig& config, int seq_len,
                                 int batch_size, uint64_t seed)
    : tokens_(std::move(token_ids)), config_(config), seq_len_(seq_len), batch_size_(batch_size), rng_(seed) {
  if (seq_len < 2 || seq_len > config.max_sequence_length())
    throw std::invalid_argument("sequence length " + std::to_string(seq_len) + ": expected 2.." +
                                std::to_string(config.max_sequence_length()) + " for " + config.name);
  if (batch_size < 1) throw std::invalid_argument("batch size " + std::to_string(batch_size) + ": expected >= 1");
}

Batch CausalLmBatcher::next() {
  std::vector<int64_t> ids;
  ids.reserve(static_cast<size_t>(batch_size_) * seq_len_);
  for (int b = 0; b < batch_size_; ++b) {
    const auto w = random_token_window(tokens_, static_cast<size_t>(seq_len_), config_, rng_);
    ids.insert(ids.end(), w.begin(), w.end());
  }
  const auto opts = torch::TensorOptions().dtype(torch::kInt64);
  Batch batch;
  batch.input_ids = torch::tensor(ids, opts).view({batch_size_, seq_len_});
  batch.labels = batch.input_ids.clone();
  batch.attention_mask = torch::ones({batch_size_, seq_len_}, opts);
  return batch;
}

}  // namespace tune
