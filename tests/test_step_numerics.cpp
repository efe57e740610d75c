// Step numerics every backend honours: the fused AdamW equals torch's AdamW, the fp16 gradient scaler skips
// overflowing steps, bf16/fp16 autocast trains and stays close to fp32, and unknown knob values are rejected.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "compile/autocast_guard.h"
#include "compile/eager_step.h"
#include "compile/fused_adamw.h"
#include "compile/jit_step.h"
#include "compile/optimizer_step.h"
#include "data/mlm_batcher.h"
#include "family_checks.h"
#include "test_helpers.h"
#include "trial/step_factory.h"

using namespace tune;

namespace {

// Two layers, so the fused kernel updates a list of tensors of several shapes.
torch::nn::Sequential tiny_mlp(uint64_t seed) {
  torch::manual_seed(seed);
  return torch::nn::Sequential(torch::nn::Linear(6, 5), torch::nn::Tanh(), torch::nn::Linear(5, 2));
}

std::vector<double> eager_losses(const StepOptions& options, int steps) {
  const ModelConfig c = tune::testing::without_dropout("bert-tiny");
  EagerStep step(build_model(c, 3), options);
  MlmBatcher batcher({}, c, 16, 8, 5);
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) losses.push_back(step.step(batcher.next()).item<double>());
  return losses;
}

// The trial runner's real-text loss-falls check, with the step knobs turned.
void expect_loss_falls_with(const std::string& backend, const std::string& precision, const std::string& optimizer) {
  tune::testing::expect_loss_falls("bert-tiny", 30, 0.5, "", 1e-3, [&](TrialSpec& s) {
    s.step.backend = backend;
    s.step.precision = precision;
    s.step.optimizer = optimizer;
  });
}

}  // namespace

TEST(FusedAdamW, FiveStepsEqualTorchAdamW) {
  auto reference = tiny_mlp(1), fused = tiny_mlp(1);
  StepOptions adamw{1e-2, "fp32", "adamw"}, fused_options{1e-2, "fp32", "fused"};
  OptimizerStep reference_step(reference->parameters(), adamw), fused_step(fused->parameters(), fused_options);
  torch::manual_seed(2);
  for (int i = 0; i < 5; ++i) {
    const auto x = torch::randn({8, 6}), y = torch::randn({8, 2});
    reference_step.run([&] { return torch::mse_loss(reference->forward(x), y); });
    fused_step.run([&] { return torch::mse_loss(fused->forward(x), y); });
  }
  const auto expected = reference->parameters(), actual = fused->parameters();
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(torch::allclose(actual[i], expected[i], 1e-5, 1e-7)) << "parameter " << i;
    EXPECT_FALSE(torch::equal(expected[i], tiny_mlp(1)->parameters()[i])) << "parameter " << i << " never moved";
    worst = std::max(worst, ((actual[i] - expected[i]).abs() / expected[i].abs().clamp_min(1e-12)).max().item<double>());
  }
  std::printf("fused vs torch AdamW after 5 steps: max relative difference %.3g\n", worst);
}

TEST(FusedAdamW, StepCountIsATensorOnTheParametersDevice) {
  auto model = tiny_mlp(1);
  OptimizerStep step(model->parameters(), StepOptions{1e-2, "fp32", "fused"});
  for (int i = 0; i < 3; ++i) step.run([&] { return model->forward(torch::ones({2, 6})).sum(); });
  auto& fused = dynamic_cast<FusedAdamW&>(step.optimizer());
  for (const auto& p : model->parameters()) {
    const auto count = fused.step_count(p);
    EXPECT_EQ(count.device(), p.device());
    EXPECT_EQ(count.item<double>(), 3.0);
  }
}

// Inf in one gradient: no parameter moves, the scale halves (2^16 -> 2^15); a clean step then updates again.
TEST(GradScaler, SkipsTheStepAndHalvesTheScaleWhenAGradIsInf) {
  for (const std::string optimizer : {"adamw", "fused"}) {
    auto w = torch::ones({2}).requires_grad_(true);
    OptimizerStep step({w}, StepOptions{1e-2, "fp16", optimizer});
    const auto poison = torch::tensor({std::numeric_limits<float>::infinity(), 1.0f});
    step.run([&] { return (w * poison).sum(); });
    EXPECT_TRUE(torch::equal(w, torch::ones({2}))) << optimizer << ": stepped despite an inf gradient";
    EXPECT_EQ(step.scaler()->current_scale(), 32768.0) << optimizer;
    if (auto* fused = dynamic_cast<FusedAdamW*>(&step.optimizer()))
      EXPECT_EQ(fused->step_count(w).item<double>(), 0.0) << "a skipped step advanced the step count";
    step.run([&] { return (w * torch::ones({2})).sum(); });
    EXPECT_FALSE(torch::equal(w, torch::ones({2}))) << optimizer << ": the clean step did not update";
    EXPECT_TRUE(w.grad().isfinite().all().item<bool>()) << optimizer;
    EXPECT_NEAR(w.grad()[0].item<double>(), 1.0, 1e-6) << optimizer << ": gradient left scaled";
    EXPECT_EQ(step.scaler()->current_scale(), 32768.0) << optimizer << ": grew before 2000 clean steps";
  }
}

TEST(StepOptions, UnknownPrecisionOptimizerOrBackendIsRejected) {
  using tune::testing::error_of;
  const ModelConfig c = resolve_model("bert-tiny");
  const auto build = [&](const std::string& backend, const StepOptions& o) {
    make_train_step(backend, build_model(c, 0), o);
  };
  for (const std::string backend : {"eager", "jit", "cuda-graph"}) {
    EXPECT_NE(error_of([&] { build(backend, {1e-3, "fp8", "adamw"}); }).find("'fp8'"), std::string::npos) << backend;
    EXPECT_NE(error_of([&] { build(backend, {1e-3, "fp32", "sgd"}); }).find("'sgd'"), std::string::npos) << backend;
  }
  const std::string unknown_backend = error_of([&] { build("xla", {}); });
  EXPECT_NE(unknown_backend.find("'xla'"), std::string::npos) << unknown_backend;
  EXPECT_NE(unknown_backend.find("cuda-graph"), std::string::npos) << unknown_backend;
}

TEST(AutocastGuard, CastsMatmulsInsideAndRestoresAfter) {
  const auto a = torch::randn({4, 4});
  for (const auto dtype : {at::kBFloat16, at::kHalf}) {
    {
      AutocastGuard outer(c10::DeviceType::CPU, dtype);
      EXPECT_EQ(torch::mm(a, a).scalar_type(), dtype);
      AutocastGuard inner(c10::DeviceType::CPU, std::nullopt);  // fp32: no change
      EXPECT_EQ(torch::mm(a, a).scalar_type(), dtype);
    }
    EXPECT_EQ(torch::mm(a, a).scalar_type(), at::kFloat);
    EXPECT_FALSE(at::autocast::is_autocast_enabled(c10::DeviceType::CPU));
  }
}

TEST(Precision, Bf16EagerLossIsCloseToFp32) {
  const auto fp32 = eager_losses({1e-3, "fp32", "adamw"}, 5), bf16 = eager_losses({1e-3, "bf16", "adamw"}, 5);
  double worst = 0;
  for (size_t i = 0; i < fp32.size(); ++i) {
    const double relative = std::abs(bf16[i] - fp32[i]) / fp32[i];
    EXPECT_LT(relative, 2e-2) << "step " << i << ": fp32 " << fp32[i] << ", bf16 " << bf16[i];
    worst = std::max(worst, relative);
  }
  EXPECT_GT(worst, 0.0) << "bf16 gave fp32's losses bit for bit: autocast did not engage";
  std::printf("bf16 vs fp32 losses over 5 steps: max relative difference %.3g\n", worst);
}

TEST(Precision, Bf16EagerTrains) { expect_loss_falls_with("eager", "bf16", "adamw"); }

TEST(Precision, Fp16WithGradScalerTrains) {
  expect_loss_falls_with("eager", "fp16", "adamw");
  expect_loss_falls_with("eager", "fp16", "fused");
}

TEST(Precision, JitBf16Trains) { expect_loss_falls_with("jit", "bf16", "fused"); }

// The jit graph is traced under autocast (casts recorded), then run with autocast off: same loss and
// gradients as eager under autocast.
TEST(Precision, JitBf16LossAndGradientsEqualEagerBf16) {
  const ModelConfig c = tune::testing::without_dropout("bert-tiny");
  const Batch b = MlmBatcher({}, c, 16, 4, 1).next();
  auto eager_model = build_model(c, 7);
  torch::Tensor eager_loss_tensor;
  {
    AutocastGuard autocast(c10::DeviceType::CPU, at::kBFloat16);
    eager_loss_tensor = eager_model.loss(b);
  }
  eager_loss_tensor.backward();
  const double eager_loss = eager_loss_tensor.item<double>();
  const double fp32_loss = eager_model.loss(b).item<double>();
  const auto eager_params = eager_model.module->named_parameters();
  auto jit_model = build_model(c, 7);
  JitStep jit(jit_model, StepOptions{1e-3, "bf16", "adamw"});
  jit.prepare(b);
  for (int run = 0; run < 3; ++run) {  // repeated runs: whatever plan the executor picks keeps the result
    jit_model.module->zero_grad();
    const auto loss = jit.traced_loss(b);
    loss.backward();
    for (const auto& p : jit_model.module->named_parameters()) {
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      EXPECT_TRUE(torch::allclose(p.value().grad(), eager_params[p.key()].grad(), 1e-3, 1e-6)) << p.key();
    }
    const double jit_loss = loss.item<double>();
    EXPECT_NEAR(jit_loss, eager_loss, 1e-3 * std::abs(eager_loss)) << "run " << run;
    EXPECT_NE(jit_loss, fp32_loss) << "run " << run << ": the traced graph ran in fp32";
    std::printf("jit bf16 run %d: %.6f, eager bf16 %.6f, eager fp32 %.6f\n", run, jit_loss, eager_loss, fp32_loss);
  }
}

