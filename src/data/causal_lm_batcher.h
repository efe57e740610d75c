// Causal-LM batches (task causal_lm, GPT-2): windows of seq_len consecutive tokens from the stream;
// labels are the inputs themselves (the model shifts them by one, as HF's GPT2LMHeadModel does).
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "data/batch_source.h"
#include "common/model_config.h"

namespace tune {

class CausalLmBatcher : public BatchSource {
 public:
  // token_ids empty: synthetic uniform word ids (throughput-only trials). Deterministic for a seed.
  // Throws std::invalid_argument for seq_len outside 2..max_position_embeddings or batch_size < 1.
  CausalLmBatcher(std::vector<int64_t> token_ids, const ModelConfig& config, int seq_len, int batch_size,
                  uint64_t seed);
  // input_ids = labels [batch, seq_len], attention_mask ones; token_type_ids stays undefined.
  Batch next() override;

 private:
  std::vector<int64_t> tokens_;
  ModelConfig config_;
  int seq_len_, batch_size_;
  std::mt19937_64 rng_;
};

}  // namespace tune
