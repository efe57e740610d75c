// The RoBERTa family: HF's parameter names and counts, position ids that skip padding as HF's
// create_position_ids_from_input_ids does, a real training run that lowers the loss, jit equal to eager.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "family_checks.h"
#include "models/roberta.h"

using namespace tune;
using torch::indexing::Slice;

TEST(Roberta, ParameterCountsEqualHuggingFace) {
  for (const char* name : {"roberta-tiny", "roberta-base"}) {
    const ModelConfig c = resolve_model(name);
    EXPECT_EQ(parameter_count(*build_model(c, 0).module), c.expected_parameters) << name;
  }
  EXPECT_EQ(resolve_model("roberta-base").expected_parameters, 124697433);  // RobertaForMaskedLM(roberta-base)
}

TEST(Roberta, ParameterNamesFollowHuggingFaceStateDict) {
  const auto params = build_model(resolve_model("roberta-tiny"), 0).module->named_parameters();
  for (const char* name : {"roberta.embeddings.word_embeddings.weight", "roberta.embeddings.position_embeddings.weight",
                           "roberta.embeddings.token_type_embeddings.weight", "roberta.embeddings.LayerNorm.bias",
                           "roberta.encoder.layer.0.attention.self.query.weight",
                           "roberta.encoder.layer.1.attention.output.LayerNorm.weight",
                           "roberta.encoder.layer.1.intermediate.dense.weight", "roberta.encoder.layer.1.output.dense.bias",
                           "lm_head.dense.weight", "lm_head.layer_norm.weight", "lm_head.bias"})
    EXPECT_TRUE(params.contains(name)) << name;
  EXPECT_FALSE(params.contains("lm_head.decoder.weight"));  // tied to word_embeddings
  EXPECT_EQ(params.size(), 5u + 16u * 2u + 5u);             // embeddings, 16 per layer, head
}

TEST(Roberta, PositionIdsCountNonPadTokensFromPaddingIdxPlusOne) {
  const auto ids = torch::tensor({0, 17, 18, 2, 1, 1, 0, 1, 19, 2}, torch::kInt64).view({2, 5});
  const auto expected = torch::tensor({2, 3, 4, 5, 1, 1, 2, 1, 3, 4}, torch::kInt64).view({2, 5});
  EXPECT_TRUE(torch::equal(roberta_position_ids(ids, 1), expected)) << roberta_position_ids(ids, 1);
}

TEST(Roberta, PaddingLeavesRealTokensUnchanged) {
  ModelConfig c = resolve_model("roberta-tiny");
  c.hidden_dropout_prob = c.attention_probs_dropout_prob = 0;
  auto model = RobertaForMaskedLM(c);
  const auto ids = torch::randint(c.first_word_token_id, c.mask_token_id, {1, 10}, torch::kInt64);
  const auto alone = model->forward(ids, {}, torch::ones_like(ids));
  const auto padded_ids = torch::cat({ids, torch::full({1, 6}, c.pad_token_id, torch::kInt64)}, 1);
  auto mask = torch::ones_like(padded_ids);
  mask.index_put_({0, Slice(10)}, 0);
  const auto padded = model->forward(padded_ids, {}, mask).index({Slice(), Slice(0, 10)});
  EXPECT_TRUE(torch::allclose(alone, padded, 1e-5, 1e-5));
  // Positions matter: the same tokens shifted right by one real token give other logits for them.
  const auto shifted_ids = torch::cat({torch::full({1, 1}, c.cls_token_id, torch::kInt64), ids}, 1);
  const auto shifted = model->forward(shifted_ids, {}, torch::ones_like(shifted_ids)).index({Slice(), Slice(1)});
  EXPECT_FALSE(torch::allclose(alone, shifted, 1e-3, 1e-3));
}

TEST(Roberta, XlmRobertaClassBuildsTheSameArchitecture) {
  ModelConfig c = resolve_model("roberta-tiny");
  c.hf_class = "XLMRobertaForMaskedLM";
  EXPECT_EQ(parameter_count(*build_model(c, 0).module), c.expected_parameters);
  c.hf_class = "RobertaForTokenClassification";  // a head tune does not build (its sequence classifier it does)
  EXPECT_THROW(build_model(c, 0), std::invalid_argument);
}

TEST(Roberta, TinyLearnsFromRealText) { tune::testing::expect_loss_falls("roberta-tiny", 30, 0.5); }

TEST(Roberta, JitLossEqualsEager) { tune::testing::expect_jit_loss_equals_eager("roberta-tiny"); }
