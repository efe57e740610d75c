// Masked-LM batches from a token stream: [CLS] tokens [SEP] windows, 15% of tokens selected and
// replaced 80/10/10 (mask / random word / unchanged), as BERT pre-training and HF's collator do.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "data/batch_source.h"
#include "common/model_config.h"

namespace tune {

class MlmBatcher : public BatchSource {
 public:
  // token_ids empty: synthetic uniform ids (throughput-only trials). Deterministic for a seed.
  MlmBatcher(std::vector<int64_t> token_ids, const ModelConfig& config, int seq_len, int batch_size, uint64_t seed);
  Batch next() override;

 private:
  std::vector<int64_t> window();
  std::vector<int64_t> tokens_;
  ModelConfig config_;
  int seq_len_, batch_size_;
  std::mt19937_64 rng_;
};

}  // namespace tune
