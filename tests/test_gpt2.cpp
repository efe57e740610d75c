// The GPT-2 family: parameter counts equal Hugging Face's GPT2LMHeadModel, names follow HF's state_dict,
// the LM head is tied, attention is causal and honours padding, the loss is HF's shifted causal-LM loss,
// a tiny GPT-2 learns in a short trial, and the jit backend's traced loss equals eager's.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cmath>

#include "family_checks.h"
#include "compile/jit_step.h"
#include "data/causal_lm_batcher.h"
#include "models/gpt2.h"
#include "models/model_factory.h"
#include "trial/trial_runner.h"

using namespace tune;
using torch::indexing::Slice;

namespace {

ModelConfig deterministic_gpt2_tiny() { return tune::testing::without_dropout("gpt2-tiny"); }

}  // namespace

TEST(Gpt2, ParameterCountsEqualHuggingFace) {
  const ModelConfig full = resolve_model("gpt2");
  EXPECT_EQ(parameter_count(*build_model(full, 0).module), full.expected_parameters);
  EXPECT_EQ(full.expected_parameters, 124439808);  // GPT2LMHeadModel(gpt2 config).num_parameters()
  const ModelConfig tiny = resolve_model("gpt2-tiny");
  EXPECT_EQ(parameter_count(*build_model(tiny, 0).module), tiny.expected_parameters);
}

TEST(Gpt2, ParameterNamesFollowHuggingFaceStateDict) {
  const auto model = build_model(resolve_model("gpt2-tiny"), 0);
  const auto params = model.module->named_parameters();
  for (const char* name : {"transformer.wte.weight", "transformer.wpe.weight", "transformer.h.0.ln_1.weight",
                           "transformer.h.0.attn.c_attn.weight", "transformer.h.0.attn.c_attn.bias",
                           "transformer.h.1.attn.c_proj.weight", "transformer.h.1.ln_2.bias",
                           "transformer.h.1.mlp.c_fc.weight", "transformer.h.1.mlp.c_proj.bias",
                           "transformer.ln_f.weight", "transformer.ln_f.bias"})
    EXPECT_TRUE(params.contains(name)) << name;
  EXPECT_FALSE(params.contains("lm_head.weight"));  // tied to wte
  EXPECT_EQ(params["transformer.h.0.attn.c_attn.weight"].sizes(), (std::vector<int64_t>{64, 192}));  // Conv1D [in, out]
  EXPECT_EQ(params["transformer.h.0.mlp.c_fc.weight"].sizes(), (std::vector<int64_t>{64, 256}));
}

TEST(Gpt2, InitScalesResidualProjections) {
  const ModelConfig c = resolve_model("gpt2");  // 12 layers: c_proj std 0.02 / sqrt(24)
  auto model = GPT2LMHeadModel(c);
  EXPECT_NEAR(model->h[0]->mlp->c_fc->weight.std().item<double>(), 0.02, 0.001);
  EXPECT_NEAR(model->h[0]->mlp->c_proj->weight.std().item<double>(), 0.02 / std::sqrt(24.0), 0.0005);
  EXPECT_EQ(model->h[0]->attn->c_attn->bias.abs().sum().item<double>(), 0.0);
}

TEST(Gpt2, LaterTokensAndPaddingDoNotChangeEarlierLogits) {
  auto model = GPT2LMHeadModel(deterministic_gpt2_tiny());
  auto ids = torch::randint(0, 1023, {1, 12}, torch::kInt64);
  const auto ones = torch::ones_like(ids);
  const auto before = model->forward(ids, ones).index({0, Slice(0, 6)});
  auto changed = ids.clone();
  changed.index_put_({0, Slice(6)}, 7);  // causal: positions < 6 must not see this
  EXPECT_TRUE(torch::allclose(before, model->forward(changed, ones).index({0, Slice(0, 6)}), 1e-5, 1e-6));
  auto mask = ones.clone();
  mask.index_put_({0, 2}, 0);  // a padded key changes what later positions see, not earlier ones
  const auto masked = model->forward(ids, mask);
  EXPECT_TRUE(torch::allclose(before.index({Slice(0, 2)}), masked.index({0, Slice(0, 2)}), 1e-5, 1e-6));
  EXPECT_FALSE(torch::allclose(before.index({Slice(3, 6)}), masked.index({0, Slice(3, 6)}), 1e-5, 1e-6));
}

TEST(Gpt2, LossIsShiftedCrossEntropyIgnoringMinus100) {
  auto model = GPT2LMHeadModel(deterministic_gpt2_tiny());
  const auto ids = torch::randint(0, 1023, {2, 10}, torch::kInt64);
  auto labels = torch::full_like(ids, -100);
  labels.index_put_({1, 4}, ids.index({1, 4}));  // only position 3 predicting token 4 is scored
  const auto logits = model->forward(ids, torch::ones_like(ids));
  const auto expected = -torch::log_softmax(logits.index({1, 3}), -1).index({ids.index({1, 4})});
  EXPECT_NEAR(model->loss(ids, torch::ones_like(ids), labels).item<double>(), expected.item<double>(), 1e-5);
  EXPECT_NEAR(expected.item<double>(), std::log(1024.0), 1.0);  // small init: near-uniform prediction
}

TEST(Gpt2, JitLossEqualsEager) { tune::testing::expect_jit_loss_equals_eager("gpt2-tiny"); }

TEST(Gpt2, TinyLearnsFromRealText) { tune::testing::expect_loss_falls("gpt2-tiny", 30, 0.5); }
