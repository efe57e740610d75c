// Sequence-classification batches, seeded and deterministic (std::mt19937_64 only), so every backend
// of one study sees the same rows in the same order.
#include "data/classification_batcher.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tune {

ClassificationBatcher::ClassificationBatcher(std::vector<LabelledExample> examples, const ModelConfig& config,
                                             int seq_len, int batch_size, uint64_t seed)
    : examples_(std::move(examples)), config_(config), seq_len_(seq_len), batch_size_(batch_size), rng_(seed) {
  if (seq_len < 3 || seq_len > config.max_sequence_length())
    throw std::invalid_argument("sequence length " + std::to_string(seq_len) + ": expected 3.." +
                                std::to_string(config.max_sequence_length()) + " for " + config.name);
  if (batch_size < 1) throw std::invalid_argument("batch size " + std::to_string(batch_size) + ": expected >= 1");
  for (const auto& e : examples_)
    if (e.label < 0 || e.label >= config.num_labels)
      throw std::invalid_argument("label id " + std::to_string(e.label) + " is outside 0.." +
                                  std::to_string(config.num_labels - 1) + " (config.num_labels of " +
                                  config.source_path + ")");
}

LabelledExample ClassificationBatcher::draw() {
  if (!examples_.empty())
    return examples_[std::uniform_int_distribution<size_t>(0, examples_.size() - 1)(rng_)];
  std::uniform_int_distribution<int64_t> word(config_.first_word_token_id, config_.word_id_end() - 1);
  LabelledExample synthetic;
  for (int i = 0; i < seq_len_ - 2; ++i) synthetic.ids.push_back(word(rng_));
  synthetic.label = std::uniform_int_distribution<int>(0, config_.num_labels - 1)(rng_);
  return synthetic;
}

Batch classification_batch(const std::vector<LabelledExample>& rows, const ModelConfig& config, int seq_len) {
  const int64_t batch_size = static_cast<int64_t>(rows.size());
  std::vector<int64_t> inputs(batch_size * seq_len, config.pad_token_id), mask(batch_size * seq_len, 0), labels;
  for (int64_t b = 0; b < batch_size; ++b) {
    const LabelledExample& e = rows[b];
    const size_t body = std::min(e.ids.size(), static_cast<size_t>(seq_len - 2));  // truncate to fit [CLS] [SEP]
    std::vector<int64_t> row{config.cls_token_id};
    row.insert(row.end(), e.ids.begin(), e.ids.begin() + static_cast<std::ptrdiff_t>(body));
    row.push_back(config.sep_token_id);
    std::copy(row.begin(), row.end(), inputs.begin() + b * seq_len);
    std::fill_n(mask.begin() + b * seq_len, row.size(), 1);
    labels.push_back(e.label);
  }
  const auto opts = torch::TensorOptions().dtype(torch::kInt64);
  Batch batch;
  batch.input_ids = torch::tensor(inputs, opts).view({batch_size, seq_len});
  batch.token_type_ids = torch::zeros({batch_size, seq_len}, opts);
  batch.attention_mask = torch::tensor(mask, opts).view({batch_size, seq_len});
  batch.labels = torch::tensor(labels, opts);
  return batch;
}

Batch ClassificationBatcher::next() {
  std::vector<LabelledExample> rows;
  for (int b = 0; b < batch_size_; ++b) rows.push_back(draw());
  return classification_batch(rows, config_, seq_len_);
}

}  // namespace tune
