// The attention knob: for every tiny model, the fused sdpa kernel takes every attention layer, gives the math
// kernel's loss and gradients on a padded batch, drops nothing in eval, traces for jit; unknown names are refused.
#include <gtest/gtest.h>

#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "data/batch_source.h"
#include "family_checks.h"
#include "models/attention.h"
#include "models/model_factory.h"
#include "parity_check.h"
#include "test_helpers.h"

using namespace tune;

namespace {

constexpr uint64_t kSeed = 7;

// A real batch of the model's task whose first row ends in padding: pad ids, attention mask 0.
Batch padded_batch(const ModelConfig& c) {
  Batch b = make_batch_source(c, {}, 16, 4, 1)->next();
  using torch::indexing::Slice;
  b.input_ids.index_put_({0, Slice(10)}, c.pad_token_id);
  b.attention_mask.index_put_({0, Slice(10)}, 0);
  return b;
}

struct LossAndGrads {
  double loss = 0;
  std::vector<std::pair<std::string, torch::Tensor>> grads;  // by parameter name, in module order
};

LossAndGrads loss_and_grads(const ModelConfig& c, const Batch& b, const std::string& attention) {
  TrainableModel model = build_model(c, kSeed, attention);
  const auto loss = model.loss(b);  // train mode (the default): dropout is off through the config
  loss.backward();
  LossAndGrads r;
  r.loss = loss.item<double>();
  for (const auto& p : model.module->named_parameters())
    if (p.value().grad().defined()) r.grads.emplace_back(p.key(), p.value().grad());
  return r;
}

int attention_modules(torch::nn::Module& module) {
  const auto all = module.modules(/*include_self=*/true);
  return static_cast<int>(std::count_if(all.begin(), all.end(), [](const auto& m) {
    return dynamic_cast<AttentionKernelChoice*>(m.get()) != nullptr;
  }));
}

// How many aten::scaled_dot_product_attention calls one traced loss makes (parameters as inputs, as JitStep).
int traced_sdpa_calls(const TrainableModel& model, const Batch& b) {
  torch::jit::Stack inputs;
  const auto batch_tensors = b.tensors();
  for (const auto& t : batch_tensors) inputs.emplace_back(t);
  for (const auto& p : model.module->parameters()) inputs.emplace_back(p);
  auto fn = [&](torch::jit::Stack stack) -> torch::jit::Stack {
    std::vector<torch::Tensor> values;
    for (size_t i = 0; i < batch_tensors.size(); ++i) values.push_back(stack[i].toTensor());
    return {model.loss(b.with_tensors(values))};
  };
  const auto graph = torch::jit::tracer::trace(inputs, fn, [](const torch::autograd::Variable&) { return ""; },
                                               /*strict=*/false).first->graph;
  int calls = 0;
  for (const auto* node : graph->nodes())
    calls += std::string(node->kind().toQualString()) == "aten::scaled_dot_product_attention";
  return calls;
}

class AttentionKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionKernels, SdpaRunsInEveryAttentionModuleAndMathInNone) {
  const ModelConfig c = tune::testing::without_dropout(GetParam());
  const Batch b = padded_batch(c);
  const TrainableModel sdpa = build_model(c, kSeed, "sdpa");
  const int modules = attention_modules(*sdpa.module);
  ASSERT_GT(modules, 0);
  EXPECT_EQ(traced_sdpa_calls(sdpa, b), modules);  // each attention module runs once per forward
  EXPECT_EQ(traced_sdpa_calls(build_model(c, kSeed, "math"), b), 0);
}

TEST_P(AttentionKernels, SdpaLossAndGradientsEqualMathOnAPaddedBatch) {
  const ModelConfig c = tune::testing::without_dropout(GetParam());
  const Batch b = padded_batch(c);
  ASSERT_LT(b.attention_mask.sum().item<int64_t>(), b.attention_mask.numel()) << "the batch must have padding";
  const LossAndGrads math = loss_and_grads(c, b, "math"), sdpa = loss_and_grads(c, b, "sdpa");
  const double loss_diff = std::abs(sdpa.loss - math.loss) / std::abs(math.loss);
  EXPECT_LT(loss_diff, 1e-5) << "math " << math.loss << ", sdpa " << sdpa.loss;
  ASSERT_EQ(sdpa.grads.size(), math.grads.size());
  ASSERT_FALSE(math.grads.empty());
  // Differences are measured against the model's largest gradient: some gradients are zero in exact arithmetic
  // (a key bias adds one constant to a query's scores, which softmax ignores), so only rounding noise is left there.
  double scale = 1e-12;
  for (const auto& [name, g] : math.grads) scale = std::max(scale, g.abs().max().item<double>());
  double worst_grad = 0;
  for (size_t i = 0; i < math.grads.size(); ++i) {
    const auto& [name, g_math] = math.grads[i];
    ASSERT_EQ(sdpa.grads[i].first, name);
    const double diff = (sdpa.grads[i].second - g_math).abs().max().item<double>() / scale;
    EXPECT_LT(diff, 1e-5) << name;
    worst_grad = std::max(worst_grad, diff);
  }
  std::printf("attention %s: loss %.6f, relative loss diff %.3g, worst grad diff %.3g of the largest gradient (%.3g) "
              "over %zu parameters\n", GetParam().c_str(), math.loss, loss_diff, worst_grad, scale, math.grads.size());
}

// With the config's dropout on, eval mode must still match: the fused call takes dropout_p 0 out of training.
// Logits, not the loss: at initialisation the loss sits near log(classes) whatever attention drops.
TEST_P(AttentionKernels, SdpaDropsNothingInEvalMode) {
  const ModelConfig c = resolve_model(GetParam());
  ASSERT_GT(c.attention_probs_dropout_prob + c.hf.value("dropout_rate", 0.0), 0.0);
  const Batch b = padded_batch(c);
  auto eval_logits = [&](const std::string& attention) {
    TrainableModel model = build_model(c, kSeed, attention);
    model.module->eval();
    torch::NoGradGuard no_grad;
    return model.logits(b);
  };
  const auto math = eval_logits("math");
  const double diff = (eval_logits("sdpa") - math).abs().max().item<double>() / math.abs().max().item<double>();
  EXPECT_LT(diff, 1e-5);
}

TEST_P(AttentionKernels, SdpaJitLossEqualsEager) { tune::testing::expect_jit_loss_equals_eager(GetParam(), "sdpa"); }

INSTANTIATE_TEST_SUITE_P(TinyModels, AttentionKernels, ::testing::ValuesIn(tune::testing::tested_model_names(true)),
                         tune::testing::param_test_name);

TEST(AttentionKernel, UnknownNameIsRefusedWithTheName) {
  const ModelConfig c = resolve_model("bert-tiny");
  const std::string message = tune::testing::error_of([&] { build_model(c, 0, "flash"); });
  EXPECT_NE(message.find("'flash'"), std::string::npos) << message;
  EXPECT_NE(message.find("math or sdpa"), std::string::npos) << message;
  EXPECT_NE(tune::testing::error_of([&] { build_model_with_weights(c, 0, "", "SDPA"); }).find("'SDPA'"),
            std::string::npos);
}

}  // namespace
