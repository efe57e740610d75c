// Span-corruption batches as T5 and HF's run_t5_mlm build them, seeded and deterministic
// (std::mt19937_64 only), with fixed shapes so compiled steps never see a new one.
#include "data/span_corruption_batcher.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "data/token_window.h"

namespace tune {
namespace {

// Noise tokens and spans for a raw length, clamped as T5 does (at least one of each, one token kept).
// std::nearbyint rounds half to even, like Python's round().
SpanCorruptionLengths counts_for(int raw) {
  SpanCorruptionLengths l;
  l.raw_tokens = raw;
  l.noise_tokens = std::clamp(static_cast<int>(std::nearbyint(raw * kNoiseDensity)), 1, raw - 1);
  l.noise_spans = std::max(1, static_cast<int>(std::nearbyint(l.noise_tokens / kMeanNoiseSpanLength)));
  l.inputs = raw - l.noise_tokens + l.noise_spans + 1;
  l.targets = l.noise_tokens + l.noise_spans + 1;
  return l;
}

// T5's _random_segmentation: `items` split into `segments` non-empty runs, uniformly at random.
std::vector<int> random_segmentation(int items, int segments, std::mt19937_64& rng) {
  std::vector<bool> starts_segment(items - 1, false);
  std::fill(starts_segment.begin(), starts_segment.begin() + (segments - 1), true);
  for (int i = items - 2; i > 0; --i) {  // Fisher-Yates, our own so the order is the same on every stdlib
    const int j = static_cast<int>(rng() % static_cast<uint64_t>(i + 1));
    const bool t = starts_segment[i];
    starts_segment[i] = starts_segment[j];
    starts_segment[j] = t;
  }
  std::vector<int> lengths{1};
  for (bool start : starts_segment) {
    if (start) lengths.push_back(0);
    ++lengths.back();
  }
  return lengths;
}

}  // namespace

SpanCorruptionLengths span_corruption_lengths(int seq_len) {
  int raw = 2;
  while (counts_for(raw + 1).inputs <= seq_len) ++raw;
  return counts_for(raw);
}

std::vector<bool> random_spans_noise_mask(int length, int noise_tokens, int spans, std::mt19937_64& rng) {
  TORCH_CHECK(noise_tokens >= spans && length - noise_tokens >= spans && spans >= 1, "bad span counts");
  const auto noise = random_segmentation(noise_tokens, spans, rng);
  const auto kept = random_segmentation(length - noise_tokens, spans, rng);
  std::vector<bool> mask;
  mask.reserve(length);
  for (int s = 0; s < spans; ++s) {
    mask.insert(mask.end(), kept[s], false);
    mask.insert(mask.end(), noise[s], true);
  }
  return mask;
}

SpanCorruptionBatcher::SpanCorruptionBatcher(std::vector<int64_t> token_ids, const ModelConfig& config, int seq_len,
                                             int batch_size, uint64_t seed)
    : tokens_(std::move(token_ids)), config_(config), seq_len_(seq_len), batch_size_(batch_size), rng_(seed) {
  if (seq_len < 8) throw std::invalid_argument("sequence length " + std::to_string(seq_len) + ": expected >= 8");
  if (batch_size < 1) throw std::invalid_argument("batch size " + std::to_string(batch_size) + ": expected >= 1");
  lengths_ = span_corruption_lengths(seq_len);
  if (config.sentinel_first_token_id < 0)
    throw std::invalid_argument(config.source_path + ": task span_corruption needs key 'tokens.sentinel_first'");
  const int sentinels = config.sentinel_first_token_id - (config.word_id_end() - 1);
  if (lengths_.noise_spans > sentinels)
    throw std::invalid_argument("sequence length " + std::to_string(seq_len) + " needs " +
                                std::to_string(lengths_.noise_spans) + " sentinels, but " + config.source_path +
                                " has " + std::to_string(sentinels) + " (tokens.sentinel_first above tokens.last_word)");
}

// Inputs: kept tokens, one sentinel per span (counting down from sentinel_first), </s>.
// Labels: each sentinel followed by its span's tokens, then </s>.
void SpanCorruptionBatcher::corrupt(const std::vector<int64_t>& raw, std::vector<int64_t>& inputs,
                                    std::vector<int64_t>& labels) {
  const auto noise = random_spans_noise_mask(lengths_.raw_tokens, lengths_.noise_tokens, lengths_.noise_spans, rng_);
  int64_t sentinel = config_.sentinel_first_token_id;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (!noise[i]) {
      inputs.push_back(raw[i]);
      continue;
    }
    if (i == 0 || !noise[i - 1]) {
      inputs.push_back(sentinel);
      labels.push_back(sentinel--);
    }
    labels.push_back(raw[i]);
  }
  inputs.push_back(config_.sep_token_id);
  labels.push_back(config_.sep_token_id);
}

Batch SpanCorruptionBatcher::next() {
  const int targets = lengths_.targets;
  std::vector<int64_t> inputs, mask, labels, decoder;
  for (int b = 0; b < batch_size_; ++b) {
    const auto raw = random_token_window(tokens_, static_cast<size_t>(lengths_.raw_tokens), config_, rng_);
    std::vector<int64_t> in, out;
    corrupt(raw, in, out);
    TORCH_CHECK(static_cast<int>(in.size()) <= seq_len_ && static_cast<int>(out.size()) == targets, "span lengths");
    mask.insert(mask.end(), in.size(), 1);
    mask.insert(mask.end(), seq_len_ - in.size(), 0);
    in.resize(seq_len_, config_.pad_token_id);
    inputs.insert(inputs.end(), in.begin(), in.end());
    decoder.push_back(config_.pad_token_id);  // T5's decoder start token is pad
    decoder.insert(decoder.end(), out.begin(), out.end() - 1);
    labels.insert(labels.end(), out.begin(), out.end());
  }
  const auto opts = torch::TensorOptions().dtype(torch::kInt64);
  Batch batch;
  batch.input_ids = torch::tensor(inputs, opts).view({batch_size_, seq_len_});
  batch.attention_mask = torch::tensor(mask, opts).view({batch_size_, seq_len_});
  batch.labels = torch::tensor(labels, opts).view({batch_size_, targets});
  batch.decoder_input_ids = torch::tensor(decoder, opts).view({batch_size_, targets});
  return batch;
}

}  // namespace tune
