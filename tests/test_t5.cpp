// The T5 family: parameter counts equal Hugging Face's T5ForConditionalGeneration, names follow HF's
// state_dict, relative position buckets match HF's, the decoder is causal and the encoder honours padding,
// the loss is HF's, a tiny T5 learns span corruption in a short trial, and jit's loss equals eager's.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cmath>

#include "family_checks.h"
#include "compile/jit_step.h"
#include "data/span_corruption_batcher.h"
#include "models/model_factory.h"
#include "models/t5.h"
#include "trial/trial_runner.h"

using namespace tune;
using torch::indexing::Slice;

namespace {

ModelConfig deterministic_t5_tiny() { return tune::testing::without_dropout("t5-tiny"); }

}  // namespace

TEST(T5, ParameterCountsEqualHuggingFace) {
  const ModelConfig full = resolve_model("t5-base");
  EXPECT_EQ(parameter_count(*build_model(full, 0).module), full.expected_parameters);
  EXPECT_EQ(full.expected_parameters, 222903552);  // T5ForConditionalGeneration(t5-base config).num_parameters()
  const ModelConfig tiny = resolve_model("t5-tiny");
  EXPECT_EQ(parameter_count(*build_model(tiny, 0).module), tiny.expected_parameters);
}

TEST(T5, ParameterNamesFollowHuggingFaceStateDict) {
  const auto params = build_model(resolve_model("t5-tiny"), 0).module->named_parameters();
  for (const char* name :
       {"shared.weight", "encoder.block.0.layer.0.SelfAttention.q.weight", "encoder.block.0.layer.0.SelfAttention.o.weight",
        "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", "encoder.block.1.layer.0.layer_norm.weight",
        "encoder.block.1.layer.1.DenseReluDense.wi.weight", "encoder.block.1.layer.1.DenseReluDense.wo.weight",
        "encoder.final_layer_norm.weight", "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
        "decoder.block.1.layer.1.EncDecAttention.k.weight", "decoder.block.1.layer.1.layer_norm.weight",
        "decoder.block.1.layer.2.DenseReluDense.wo.weight", "decoder.final_layer_norm.weight"})
    EXPECT_TRUE(params.contains(name)) << name;
  for (const char* absent : {"lm_head.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight",
                             "encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight",
                             "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight",
                             "encoder.block.0.layer.0.SelfAttention.q.bias"})
    EXPECT_FALSE(params.contains(absent)) << absent;
}

TEST(T5, GatedGeluHasTwoInputProjections) {
  ModelConfig c = resolve_model("t5-tiny");
  c.hf["feed_forward_proj"] = "gated-gelu";
  const auto params = build_model(c, 0).module->named_parameters();
  EXPECT_TRUE(params.contains("encoder.block.0.layer.1.DenseReluDense.wi_0.weight"));
  EXPECT_TRUE(params.contains("encoder.block.0.layer.1.DenseReluDense.wi_1.weight"));
  EXPECT_FALSE(params.contains("encoder.block.0.layer.1.DenseReluDense.wi.weight"));
  c.hf["feed_forward_proj"] = "fancy-gelu";
  EXPECT_THROW(build_model(c, 0), std::invalid_argument);
}

TEST(T5, RelativeBucketsMatchHuggingFace) {
  auto model = T5ForConditionalGeneration(deterministic_t5_tiny());
  auto& enc = model->encoder->blocks[0]->self_attention;
  auto& dec = model->decoder->blocks[0]->self_attention;
  torch::NoGradGuard no_grad;
  // Bucket b's bias = b for head 0, so compute_bias reveals the bucket of each offset.
  enc->relative_attention_bias->weight.select(1, 0).copy_(torch::arange(32, torch::kFloat));
  dec->relative_attention_bias->weight.select(1, 0).copy_(torch::arange(32, torch::kFloat));
  const auto e = enc->compute_bias(1, 200, torch::kCPU)[0][0][0];  // key - query = 0..199
  const auto d = dec->compute_bias(200, 1, torch::kCPU)[0][0].select(1, 0);  // key - query = 0..-199
  // Values from transformers' T5Attention._relative_position_bucket (32 buckets, max distance 128).
  const std::vector<std::pair<int, int>> bidirectional = {{0, 0}, {1, 17}, {7, 23}, {8, 24}, {12, 25}, {20, 26},
                                                          {40, 28}, {64, 30}, {100, 31}, {199, 31}};
  for (auto [offset, bucket] : bidirectional) EXPECT_EQ(e[offset].item<int>(), bucket) << "offset " << offset;
  const std::vector<std::pair<int, int>> causal = {{0, 0}, {1, 1}, {15, 15}, {16, 16}, {20, 17}, {40, 23},
                                                   {64, 26}, {100, 30}, {127, 31}, {199, 31}};
  for (auto [offset, bucket] : causal) EXPECT_EQ(d[offset].item<int>(), bucket) << "offset -" << offset;
}

TEST(T5, DecoderIsCausalAndEncoderPaddingIsHidden) {
  auto model = T5ForConditionalGeneration(deterministic_t5_tiny());
  auto ids = torch::randint(3, 1000, {1, 10}, torch::kInt64);
  auto dec = torch::randint(3, 1000, {1, 8}, torch::kInt64);
  auto mask = torch::ones_like(ids);
  mask.index_put_({0, Slice(7)}, 0);
  const auto before = model->forward(ids, mask, dec);
  auto later = dec.clone();
  later.index_put_({0, Slice(4)}, 5);
  EXPECT_TRUE(torch::allclose(before.index({0, Slice(0, 4)}), model->forward(ids, mask, later).index({0, Slice(0, 4)}),
                              1e-5, 1e-6));
  auto padded = ids.clone();
  padded.index_put_({0, Slice(7)}, 9);  // only masked encoder tokens change
  EXPECT_TRUE(torch::allclose(before, model->forward(padded, mask, dec), 1e-5, 1e-6));
}

TEST(T5, LossIsCrossEntropyOverLabelsAndShiftsThemRight) {
  auto model = T5ForConditionalGeneration(deterministic_t5_tiny());
  const auto ids = torch::randint(3, 1000, {2, 12}, torch::kInt64);
  auto labels = torch::randint(3, 1000, {2, 5}, torch::kInt64);
  labels.index_put_({Slice(), Slice(2)}, -100);
  const auto shifted = model->shift_right(labels);
  EXPECT_EQ(shifted.index({0, 0}).item<int64_t>(), 0);  // start token = pad
  EXPECT_EQ(shifted.index({1, 1}).item<int64_t>(), labels.index({1, 0}).item<int64_t>());
  EXPECT_EQ(shifted.index({1, 4}).item<int64_t>(), 0);  // -100 becomes pad
  const auto mask = torch::ones_like(ids);
  const auto logp = torch::log_softmax(model->forward(ids, mask, shifted), -1);
  double expected = 0;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 2; ++t) expected -= logp.index({b, t, labels.index({b, t})}).item<double>() / 4;
  EXPECT_NEAR(model->loss(ids, mask, {}, labels).item<double>(), expected, 1e-5);
  EXPECT_NEAR(model->loss(ids, mask, shifted, labels).item<double>(), expected, 1e-5);
}

TEST(T5, JitLossEqualsEager) { tune::testing::expect_jit_loss_equals_eager("t5-tiny"); }

TEST(T5, TinyLearnsSpanCorruptionFromRealText) { tune::testing::expect_loss_falls("t5-tiny", 30, 0.5, "", 3e-3); }
