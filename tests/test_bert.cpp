// The BERT family: parameter counts equal Hugging Face's BertForMaskedLM for the tested configs,
// parameter names follow HF's state_dict, the decoder is tied, and the masked-LM loss is HF's.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "data/mlm_batcher.h"
#include "models/bert.h"
#include "models/model_factory.h"

using namespace tune;

TEST(Bert, BaseCasedParameterCountEqualsHuggingFace) {
  const ModelConfig c = resolve_model("bert-base-cased");
  const auto model = build_model(c, 0);
  EXPECT_EQ(parameter_count(*model.module), c.expected_parameters);
  EXPECT_EQ(parameter_count(*model.module), 108340804);  // BertForMaskedLM.from_config(bert-base-cased)
}

TEST(Bert, TinyParameterCountEqualsYaml) {
  const ModelConfig c = resolve_model("bert-tiny");
  EXPECT_EQ(parameter_count(*build_model(c, 0).module), c.expected_parameters);
}

TEST(Bert, ParameterNamesFollowHuggingFaceStateDict) {
  const ModelConfig c = resolve_model("bert-tiny");
  const auto model = build_model(c, 0);
  const auto params = model.module->named_parameters();
  for (const char* name : {"bert.embeddings.word_embeddings.weight", "bert.embeddings.LayerNorm.weight",
                           "bert.encoder.layer.0.attention.self.query.weight",
                           "bert.encoder.layer.1.attention.output.LayerNorm.bias",
                           "bert.encoder.layer.1.intermediate.dense.weight", "bert.encoder.layer.1.output.dense.bias",
                           "cls.predictions.bias", "cls.predictions.transform.dense.weight",
                           "cls.predictions.transform.LayerNorm.weight"})
    EXPECT_TRUE(params.contains(name)) << name;
  EXPECT_FALSE(params.contains("cls.predictions.decoder.weight"));  // tied to word_embeddings
}

TEST(Bert, LossIgnoresUnlabelledPositionsAndStartsNearUniform) {
  ModelConfig c = resolve_model("bert-tiny");
  c.hidden_dropout_prob = c.attention_probs_dropout_prob = 0;
  auto model = BertForMaskedLM(c);
  const auto ids = torch::randint(104, c.vocab_size, {2, 16}, torch::kInt64);
  const auto types = torch::zeros_like(ids), mask = torch::ones_like(ids);
  auto labels = torch::full_like(ids, -100);
  labels.index_put_({0, 3}, ids.index({0, 3}));
  const auto logits = model->forward(ids, types, mask);
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{2, 16, c.vocab_size}));
  const auto expected = torch::log_softmax(logits.index({0, 3}), -1).index({ids.index({0, 3})}).neg();
  EXPECT_NEAR(model->loss(ids, types, mask, labels).item<double>(), expected.item<double>(), 1e-5);
  EXPECT_NEAR(expected.item<double>(), std::log(c.vocab_size), 1.0);  // small init: near-uniform prediction
}

TEST(Bert, AttentionMaskHidesPaddedKeys) {
  ModelConfig c = resolve_model("bert-tiny");
  c.hidden_dropout_prob = c.attention_probs_dropout_prob = 0;
  auto model = BertForMaskedLM(c);
  auto ids = torch::randint(104, c.vocab_size, {1, 12}, torch::kInt64);
  const auto types = torch::zeros_like(ids);
  auto mask = torch::ones_like(ids);
  mask.index_put_({0, torch::indexing::Slice(8)}, 0);
  const auto before = model->forward(ids, types, mask).index({0, torch::indexing::Slice(0, 8)});
  ids.index_put_({0, torch::indexing::Slice(8)}, 200);  // change only masked-out tokens
  const auto after = model->forward(ids, types, mask).index({0, torch::indexing::Slice(0, 8)});
  EXPECT_TRUE(torch::allclose(before, after, 1e-5, 1e-6));
}

// Batch 1 with 2 body tokens draws no masked token ~72% of the time at 15%: each batch still scores one,
// so a long small-batch training run never sees a 0/0 loss.
TEST(Bert, EveryMaskedLmBatchScoresAtLeastOneToken) {
  const ModelConfig c = resolve_model("bert-tiny");
  MlmBatcher batcher({}, c, 8, 1, 7);  // the shortest sequence: ~6 maskable tokens, often none drawn
  for (int i = 0; i < 100; ++i) {
    const Batch b = batcher.next();
    EXPECT_GT((b.labels != -100).sum().item<int64_t>(), 0) << "batch " << i;
  }
}
