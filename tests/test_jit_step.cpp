// The jit backend: the traced training forward gives eager's loss, its gradients reach the original
// parameters and equal eager's, a new batch shape recompiles, and its steps train like eager's.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "compile/eager_step.h"
#include "family_checks.h"
#include "compile/jit_step.h"
#include "data/mlm_batcher.h"

using namespace tune;

namespace {

ModelConfig deterministic_bert_tiny() { return tune::testing::without_dropout("bert-tiny"); }

Batch batch_of(const ModelConfig& c, int batch, int seq, uint64_t seed) {
  return MlmBatcher({}, c, seq, batch, seed).next();
}

}  // namespace

TEST(JitStep, GradientsEqualEagerAndReachOriginalParameters) {
  const ModelConfig c = deterministic_bert_tiny();
  const Batch b = batch_of(c, 4, 16, 1);
  auto eager_model = build_model(c, 7);
  auto eager_loss = eager_model.loss(b);
  eager_loss.backward();

  auto jit_model = build_model(c, 7);
  JitStep jit(jit_model, StepOptions{1e-3});
  jit.prepare(b);
  for (int run = 0; run < 3; ++run) {  // profiling run, optimizing run, optimized run
    jit_model.module->zero_grad();
    auto loss = jit.traced_loss(b);
    EXPECT_NEAR(loss.item<double>(), eager_loss.item<double>(), 1e-5) << "run " << run;
    loss.backward();
    const auto eager_params = eager_model.module->named_parameters();
    for (const auto& p : jit_model.module->named_parameters()) {
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      EXPECT_TRUE(torch::allclose(p.value().grad(), eager_params[p.key()].grad(), 1e-4, 1e-6)) << p.key();
    }
  }
}

TEST(JitStep, NewShapeRecompiles) {
  const ModelConfig c = deterministic_bert_tiny();
  auto model = build_model(c, 0);
  JitStep jit(model, StepOptions{1e-3});
  jit.prepare(batch_of(c, 2, 16, 1));
  jit.step(batch_of(c, 2, 16, 2));
  EXPECT_EQ(jit.recompiles(), 0);
  jit.step(batch_of(c, 4, 16, 3));
  EXPECT_EQ(jit.recompiles(), 1);
}

TEST(JitStep, TrainsLikeEager) {
  const ModelConfig c = deterministic_bert_tiny();
  std::vector<Batch> batches;
  MlmBatcher batcher({}, c, 16, 4, 5);
  for (int i = 0; i < 5; ++i) batches.push_back(batcher.next());
  EagerStep eager(build_model(c, 3), StepOptions{1e-3});
  JitStep jit(build_model(c, 3), StepOptions{1e-3});
  jit.prepare(batches[0]);
  for (const auto& b : batches)
    EXPECT_NEAR(eager.step(b).item<double>(), jit.step(b).item<double>(), 1e-3);
}
