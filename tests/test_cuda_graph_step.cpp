// The cuda-graph backend: off CUDA it is a capture-stage compile error (a trial records compile_error); on a
// GPU its replays equal eager steps with the same fused optimizer, and a new batch shape re-captures.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cmath>

#include "compile/cuda_graph_step.h"
#include "compile/eager_step.h"
#include "data/mlm_batcher.h"
#include "family_checks.h"
#include "trial/step_factory.h"
#include "trial/trial_runner.h"

using namespace tune;

TEST(CudaGraphStep, OnCpuIsACaptureCompileError) {
  const ModelConfig c = resolve_model("bert-tiny");
  auto step = make_train_step("cuda-graph", build_model(c, 0), StepOptions{});
  try {
    step->prepare(MlmBatcher({}, c, 16, 2, 1).next());
    FAIL() << "prepare on cpu did not throw";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.stage, "capture");
    EXPECT_NE(std::string(e.what()).find("model is on cpu"), std::string::npos) << e.what();
  }
}

TEST(CudaGraphStep, OnCpuTrialRecordsCompileError) {
  TrialSpec s;
  s.model = resolve_model("bert-tiny");
  s.step.backend = "cuda-graph";
  s.seq_len = 16;
  s.batch_size = 2;
  s.threads = 1;
  const TrialResult r = run_trial_in_process(s);
  EXPECT_EQ(r.status, TrialStatus::compile_error) << r.error_message;
  EXPECT_EQ(r.error_stage, "capture");
  EXPECT_NE(r.error_message.find("CUDA"), std::string::npos) << r.error_message;
}

namespace {

struct StepRun {
  std::vector<double> losses;
  std::vector<torch::Tensor> parameters;
};

StepRun run_steps(const std::string& backend, const ModelConfig& c, const std::vector<Batch>& batches) {
  auto model = build_model(c, 3);
  model.module->to(torch::kCUDA);
  auto step = make_train_step(backend, model, StepOptions{1e-3, "fp32", "fused"});
  step->prepare(batches.front());
  StepRun run;
  for (const auto& b : batches) run.losses.push_back(step->step(b).item<double>());
  for (const auto& p : model.module->parameters()) run.parameters.push_back(p.detach().cpu());
  return run;
}

std::vector<Batch> cuda_batches(const ModelConfig& c, int count, int batch, int seq) {
  MlmBatcher batcher({}, c, seq, batch, 5);
  std::vector<Batch> out;
  for (int i = 0; i < count; ++i) out.push_back(batcher.next().to(torch::kCUDA));
  return out;
}

}  // namespace

// GPU-only: skipped where torch::cuda::is_available() is false (no CUDA device to capture on).
TEST(CudaGraphStep, GpuOnly_FiveReplaysEqualFiveEagerFusedSteps) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "GPU-only: no CUDA device";
  const ModelConfig c = tune::testing::without_dropout("bert-tiny");
  const auto batches = cuda_batches(c, 5, 4, 16);
  const StepRun eager = run_steps("eager", c, batches), graph = run_steps("cuda-graph", c, batches);
  for (size_t i = 0; i < batches.size(); ++i) EXPECT_NEAR(graph.losses[i], eager.losses[i], 1e-4) << "step " << i;
  for (size_t i = 0; i < eager.parameters.size(); ++i)
    EXPECT_TRUE(torch::allclose(graph.parameters[i], eager.parameters[i], 1e-4, 1e-6)) << "parameter " << i;
}

// GPU-only: skipped where torch::cuda::is_available() is false.
TEST(CudaGraphStep, GpuOnly_NewBatchShapeRecaptures) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "GPU-only: no CUDA device";
  const ModelConfig c = tune::testing::without_dropout("bert-tiny");
  auto model = build_model(c, 0);
  model.module->to(torch::kCUDA);
  CudaGraphStep step(model, StepOptions{1e-3, "bf16", "adamw"});
  const auto report = step.prepare(cuda_batches(c, 1, 2, 16).front());
  EXPECT_NE(report.info.find("graph captured"), std::string::npos) << report.info;
  EXPECT_NE(report.info.find("fused"), std::string::npos) << report.info;
  EXPECT_TRUE(std::isfinite(step.step(cuda_batches(c, 1, 2, 16).front()).item<double>()));
  EXPECT_EQ(step.recaptures(), 0);
  EXPECT_TRUE(std::isfinite(step.step(cuda_batches(c, 1, 4, 16).front()).item<double>()));
  EXPECT_EQ(step.recaptures(), 1);
}
