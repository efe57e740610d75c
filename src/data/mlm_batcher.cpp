// Masked-LM batches from a token stream, seeded and deterministic (std::mt19937_64 only),
// so every backend of one study trains on exactly the same batches.
#include "data/mlm_batcher.h"

#include <algorithm>

#include <stdexcept>

namespace tune {

MlmBatcher::MlmBatcher(std::vector<int64_t> token_ids, const ModelConfig& config, int seq_len, int batch_size,
                       uint64_t seed)
    : tokens_(std::move(token_ids)), config_(config), seq_len_(seq_len), batch_size_(batch_size), rng_(seed) {
  if (seq_len < 8 || seq_len > config.max_sequence_length())
    throw std::invalid_argument("sequence length " + std::to_string(seq_len) + ": expected 8.." +
                                std::to_string(config.max_sequence_length()) + " for " + config.name);
  if (batch_size < 1) throw std::invalid_argument("batch size " + std::to_string(batch_size) + ": expected >= 1");
}

// [CLS] + seq_len-2 consecutive corpus tokens from a random offset + [SEP].
std::vector<int64_t> MlmBatcher::window() {
  const size_t body = static_cast<size_t>(seq_len_ - 2);
  std::vector<int64_t> ids{config_.cls_token_id};
  if (tokens_.size() > body) {
    std::uniform_int_distribution<size_t> start(0, tokens_.size() - body - 1);
    const size_t s = start(rng_);
    ids.insert(ids.end(), tokens_.begin() + s, tokens_.begin() + s + body);
  } else {
    std::uniform_int_distribution<int64_t> word(config_.first_word_token_id, config_.word_id_end() - 1);
    for (size_t i = 0; i < body; ++i) ids.push_back(tokens_.empty() ? word(rng_) : tokens_[i % tokens_.size()]);
  }
  ids.push_back(config_.sep_token_id);
  return ids;
}

Batch MlmBatcher::next() {
  const int64_t n = static_cast<int64_t>(batch_size_) * seq_len_;
  std::vector<int64_t> inputs, labels(n, -100);
  inputs.reserve(n);
  for (int b = 0; b < batch_size_; ++b) {
    auto w = window();
    inputs.insert(inputs.end(), w.begin(), w.end());
  }
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int64_t> word(config_.first_word_token_id, config_.word_id_end() - 1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t pos = i % seq_len_;
    if (pos == 0 || pos == seq_len_ - 1 || u(rng_) >= 0.15) continue;  // special tokens are never masked
    labels[i] = inputs[i];
    const double r = u(rng_);
    if (r < 0.8) inputs[i] = config_.mask_token_id;
    else if (r < 0.9) inputs[i] = word(rng_);
  }
  // A batch with no masked token has no loss (0 / 0 = NaN, a false "diverged"): small batches of short
  // windows draw one now and then (batch 1 at seq 32: ~1 in 130), so mask the first body token.
  if (seq_len_ > 2 && std::all_of(labels.begin(), labels.end(), [](int64_t l) { return l == -100; })) {
    labels[1] = inputs[1];
    inputs[1] = config_.mask_token_id;
  }
  const auto opts = torch::TensorOptions().dtype(torch::kInt64);
  Batch batch;
  batch.input_ids = torch::tensor(inputs, opts).view({batch_size_, seq_len_});
  batch.labels = torch::tensor(labels, opts).view({batch_size_, seq_len_});
  batch.token_type_ids = torch::zeros({batch_size_, seq_len_}, opts);
  batch.attention_mask = torch::ones({batch_size_, seq_len_}, opts);
  return batch;
}

}  // namespace tune
