// Span-corruption batches (task span_corruption, T5's pre-training objective): 15% of a window's tokens,
// in spans of mean length 3, are each replaced by one sentinel; the targets spell the spans out after them.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "data/batch_source.h"
#include "common/model_config.h"

namespace tune {

// Sizes for one example, all fixed by the input length (T5's compute_input_and_target_lengths).
struct SpanCorruptionLengths {
  int raw_tokens = 0;    // tokens taken from the stream
  int noise_tokens = 0;  // of those, how many are corrupted
  int noise_spans = 0;   // how many spans (one sentinel each)
  int inputs = 0;        // raw - noise + spans + 1 (</s>) <= seq_len
  int targets = 0;       // noise + spans + 1 (</s>): the fixed label length
};

constexpr double kNoiseDensity = 0.15;
constexpr double kMeanNoiseSpanLength = 3.0;

// The longest raw window whose corrupted inputs fit in seq_len, and its target length.
SpanCorruptionLengths span_corruption_lengths(int seq_len);

// T5's random_spans_noise_mask: `spans` noise spans and as many non-noise spans, alternating, non-noise first,
// each length a random segmentation. true = noise. Draws only from `rng`.
std::vector<bool> random_spans_noise_mask(int length, int noise_tokens, int spans, std::mt19937_64& rng);

class SpanCorruptionBatcher : public BatchSource {
 public:
  // token_ids empty: synthetic uniform word ids. Deterministic for a seed. Throws std::invalid_argument when
  // the model has no sentinels (tokens.sentinel_first), too few for seq_len's spans, or a bad shape.
  SpanCorruptionBatcher(std::vector<int64_t> token_ids, const ModelConfig& config, int seq_len, int batch_size,
                        uint64_t seed);
  // input_ids / attention_mask [batch, seq_len] (pad and 0 past </s>); labels / decoder_input_ids
  // [batch, targets] (decoder ids = labels shifted right, starting with pad). Every example's labels fill
  // exactly `targets` (the counts depend on seq_len only), so no label is -100.
  Batch next() override;
  const SpanCorruptionLengths& lengths() const { return lengths_; }

 private:
  void corrupt(const std::vector<int64_t>& raw, std::vector<int64_t>& inputs, std::vector<int64_t>& labels);
  std::vector<int64_t> tokens_;
  ModelConfig config_;
  int seq_len_, batch_size_;
  SpanCorruptionLengths lengths_;
  std::mt19937_64 rng_;
};

}  // namespace tune
