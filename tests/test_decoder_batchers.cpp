// The causal-LM and span-corruption batch sources: fixed shapes, windows taken from the stream,
// T5's sentinel and span rules, and the same batches for the same seed (different ones for another).
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <numeric>

#include "data/batch_source.h"
#include "data/causal_lm_batcher.h"
#include "data/span_corruption_batcher.h"

using namespace tune;

namespace {

std::vector<int64_t> counting_stream(int64_t n, int64_t first) {
  std::vector<int64_t> s(n);
  std::iota(s.begin(), s.end(), first);
  return s;
}

std::vector<int64_t> row(const torch::Tensor& t, int64_t r) {
  const auto c = t[r].contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

}  // namespace

TEST(CausalLmBatcher, WindowsOfConsecutiveTokensLabelledWithThemselves) {
  const ModelConfig c = resolve_model("gpt2-tiny");
  CausalLmBatcher source(counting_stream(500, 0), c, 16, 4, 1);
  const Batch b = source.next();
  EXPECT_EQ(b.input_ids.sizes(), (std::vector<int64_t>{4, 16}));
  EXPECT_TRUE(torch::equal(b.labels, b.input_ids));
  EXPECT_TRUE(torch::equal(b.attention_mask, torch::ones_like(b.input_ids)));
  EXPECT_FALSE(b.token_type_ids.defined());
  EXPECT_FALSE(b.decoder_input_ids.defined());
  for (int r = 0; r < 4; ++r) {
    const auto ids = row(b.input_ids, r);
    for (size_t i = 1; i < ids.size(); ++i) EXPECT_EQ(ids[i], ids[i - 1] + 1);  // consecutive stream tokens
  }
}

TEST(CausalLmBatcher, SameSeedSameBatchesAndSyntheticIdsAreWords) {
  const ModelConfig c = resolve_model("gpt2-tiny");
  CausalLmBatcher a({}, c, 32, 8, 7), same({}, c, 32, 8, 7), other({}, c, 32, 8, 8);
  const Batch x = a.next();
  EXPECT_TRUE(torch::equal(x.input_ids, same.next().input_ids));
  EXPECT_FALSE(torch::equal(x.input_ids, other.next().input_ids));
  EXPECT_GE(x.input_ids.min().item<int64_t>(), c.first_word_token_id);
  EXPECT_LT(x.input_ids.max().item<int64_t>(), c.word_id_end());  // never <|endoftext|>
  EXPECT_THROW(CausalLmBatcher({}, c, c.max_position_embeddings + 1, 1, 0), std::invalid_argument);
}

TEST(SpanCorruptionBatcher, LengthsFollowT5) {
  // seq_len 512 is T5's own setting: 568 raw tokens, 85 noise tokens in 28 spans, 114 target tokens.
  const auto l = span_corruption_lengths(512);
  EXPECT_EQ(l.raw_tokens, 568);
  EXPECT_EQ(l.noise_tokens, 85);
  EXPECT_EQ(l.noise_spans, 28);
  EXPECT_EQ(l.inputs, 512);
  EXPECT_EQ(l.targets, 114);
  for (int seq : {8, 9, 32, 100, 128}) {
    const auto s = span_corruption_lengths(seq);
    EXPECT_LE(s.inputs, seq);
    EXPECT_GT(span_corruption_lengths(seq + 1).raw_tokens, s.raw_tokens - 1);
  }
}

TEST(SpanCorruptionBatcher, NoiseMaskHasTheRequestedSpans) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const auto mask = random_spans_noise_mask(100, 15, 5, rng);
    ASSERT_EQ(mask.size(), 100u);
    EXPECT_FALSE(mask.front());  // a kept span comes first
    EXPECT_EQ(std::count(mask.begin(), mask.end(), true), 15);
    int spans = 0;
    for (size_t i = 0; i < mask.size(); ++i) spans += mask[i] && (i == 0 || !mask[i - 1]);
    EXPECT_EQ(spans, 5);
  }
}

TEST(SpanCorruptionBatcher, SentinelsReplaceSpansAndTargetsSpellThemOut) {
  const ModelConfig c = resolve_model("t5-tiny");
  SpanCorruptionBatcher source(counting_stream(900, 3), c, 32, 3, 11);
  const auto l = source.lengths();
  const Batch b = source.next();
  EXPECT_EQ(b.input_ids.sizes(), (std::vector<int64_t>{3, 32}));
  EXPECT_EQ(b.labels.sizes(), (std::vector<int64_t>{3, l.targets}));
  EXPECT_EQ(b.decoder_input_ids.sizes(), b.labels.sizes());
  EXPECT_FALSE(b.token_type_ids.defined());
  for (int r = 0; r < 3; ++r) {
    const auto in = row(b.input_ids, r), lab = row(b.labels, r), dec = row(b.decoder_input_ids, r);
    const auto mask = row(b.attention_mask, r);
    EXPECT_EQ(in[l.inputs - 1], c.sep_token_id);  // inputs end with </s>, then padding
    for (int i = 0; i < 32; ++i) EXPECT_EQ(mask[i], i < l.inputs ? 1 : 0);
    for (int i = l.inputs; i < 32; ++i) EXPECT_EQ(in[i], c.pad_token_id);
    EXPECT_EQ(lab.back(), c.sep_token_id);
    EXPECT_EQ(lab.front(), c.sentinel_first_token_id);  // <extra_id_0> opens the targets
    EXPECT_EQ(dec.front(), c.pad_token_id);
    for (size_t i = 1; i < dec.size(); ++i) EXPECT_EQ(dec[i], lab[i - 1]);
    // Merging inputs and targets at the sentinels gives back the consecutive stream window.
    std::vector<int64_t> restored;
    size_t t = 0;
    int64_t expected_sentinel = c.sentinel_first_token_id;
    for (int i = 0; i < l.inputs - 1; ++i) {
      if (in[i] <= c.word_id_end() - 1) {
        restored.push_back(in[i]);
        continue;
      }
      EXPECT_EQ(in[i], expected_sentinel--);  // sentinels count down
      ASSERT_EQ(lab[t++], in[i]);
      while (t < lab.size() && lab[t] <= c.word_id_end() - 1 && lab[t] != c.sep_token_id) restored.push_back(lab[t++]);
    }
    ASSERT_EQ(static_cast<int>(restored.size()), l.raw_tokens);
    for (size_t i = 1; i < restored.size(); ++i) EXPECT_EQ(restored[i], restored[i - 1] + 1);
  }
}

TEST(SpanCorruptionBatcher, SameSeedSameBatches) {
  const ModelConfig c = resolve_model("t5-tiny");
  SpanCorruptionBatcher a({}, c, 32, 4, 5), same({}, c, 32, 4, 5), other({}, c, 32, 4, 6);
  for (int i = 0; i < 3; ++i) {
    const Batch x = a.next(), y = same.next(), z = other.next();
    EXPECT_TRUE(torch::equal(x.input_ids, y.input_ids));
    EXPECT_TRUE(torch::equal(x.labels, y.labels));
    EXPECT_FALSE(torch::equal(x.labels, z.labels));
  }
}

TEST(SpanCorruptionBatcher, RegisteredForTaskAndRejectsTooFewSentinels) {
  ModelConfig c = resolve_model("t5-tiny");
  const Batch b = make_batch_source(c, {}, 32, 2, 0)->next();
  EXPECT_TRUE(b.decoder_input_ids.defined());
  c.last_word_token_id = c.sentinel_first_token_id - 2;  // two sentinels left
  EXPECT_THROW(SpanCorruptionBatcher({}, c, 128, 1, 0), std::invalid_argument);
  c.sentinel_first_token_id = -1;
  EXPECT_THROW(SpanCorruptionBatcher({}, c, 32, 1, 0), std::invalid_argument);
}
