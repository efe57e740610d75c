// Sequence-classification batches from labelled examples: [CLS] ids [SEP], truncated or padded with the
// pad id to seq_len, an attention mask hiding the padding, and one label per row (labels [batch]).
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "data/batch_source.h"
#include "common/model_config.h"

namespace tune {

// One batch of these rows, in order: [CLS] ids [SEP] truncated or padded to seq_len, token types 0, one label each.
Batch classification_batch(const std::vector<LabelledExample>& rows, const ModelConfig& config, int seq_len);

class ClassificationBatcher : public BatchSource {
 public:
  // examples empty: synthetic full-length rows with uniform labels (throughput-only trials).
  // Each batch draws its rows uniformly at random with the seed; throws std::invalid_argument for a bad
  // shape or a label outside [0, num_labels).
  ClassificationBatcher(std::vector<LabelledExample> examples, const ModelConfig& config, int seq_len, int batch_size,
                        uint64_t seed);
  Batch next() override;

 private:
  LabelledExample draw();
  std::vector<LabelledExample> examples_;
  ModelConfig config_;
  int seq_len_, batch_size_;
  std::mt19937_64 rng_;
};

}  // namespace tune
