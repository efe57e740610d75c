// One trial, in process and isolated: a tiny BERT trains (loss falls), bad input is status invalid,
// a memory cap turns into status oom, and each isolated trial leaves a folder that reruns it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "test_helpers.h"
#include "trial/trial_process.h"
#include "models/model_flops.h"
#include "trial/trial_runner.h"

using namespace tune;
using tune::testing::temp_dir;

namespace {

TrialSpec tiny_spec() {
  TrialSpec s;
  s.model = resolve_model("bert-tiny");
  s.seq_len = 32;
  s.batch_size = 8;
  s.learning_rate = 1e-3;
  s.seed = 3;
  s.threads = 1;
  s.timeout_seconds = 300;
  return s;
}

}  // namespace

TEST(Trial, TinyBertLearnsFromRealText) {
  TrialSpec s = tiny_spec();
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = 40;
  const TrialResult r = run_trial_in_process(s);
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_message;
  ASSERT_EQ(r.losses.size(), 40u);
  const double first = (r.losses[0] + r.losses[1] + r.losses[2]) / 3;
  EXPECT_LT(r.score_loss, first - 0.5) << "loss did not fall: first " << first << ", last " << r.score_loss;
  EXPECT_EQ(r.parameter_count, s.model.expected_parameters);
}

// A scheduled rate (warm-up, then cosine): the first loss comes before any update, the second after one at a
// quarter of the peak; the fused optimizer (its rate in a device tensor) trains as stock AdamW does.
TEST(Trial, ScheduledRateWarmsUpAndIsTheSameOnBothOptimizers) {
  TrialSpec s = tiny_spec();
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = 8;
  const TrialResult constant = run_trial_in_process(s);
  s.lr_schedule = "cosine";
  s.lr_warmup_steps = 4;
  const TrialResult scheduled = run_trial_in_process(s);
  s.step.optimizer = "fused";
  const TrialResult fused = run_trial_in_process(s);
  for (const TrialResult* r : {&constant, &scheduled, &fused}) ASSERT_EQ(r->status, TrialStatus::ok) << r->error_message;
  EXPECT_EQ(scheduled.losses[0], constant.losses[0]);
  EXPECT_GT(std::fabs(scheduled.losses[1] - constant.losses[1]), 1e-4) << "the warm-up's first rate is 1/4 of the peak";
  for (size_t i = 0; i < scheduled.losses.size(); ++i) EXPECT_NEAR(fused.losses[i], scheduled.losses[i], 1e-4) << i;
  s.lr_schedule = "linear";
  const TrialResult unknown = run_trial_in_process(s);
  EXPECT_EQ(unknown.status, TrialStatus::invalid);
  EXPECT_NE(unknown.error_message.find("'linear'"), std::string::npos) << unknown.error_message;
}

TEST(Trial, ThroughputTrialTimesWarmupApartFromSteadySteps) {
  TrialSpec s = tiny_spec();
  s.step.backend = "jit";
  s.measure.warmup_steps = 3;
  s.measure.min_measure_steps = 4;
  s.measure.max_measure_steps = 6;
  s.measure.measure_seconds = 0.0001;
  const TrialResult r = run_trial_in_process(s);
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_message;
  EXPECT_EQ(r.step_times.size(), 4u);
  EXPECT_GT(r.first_steps_seconds, 0);
  EXPECT_GT(r.samples_per_second, 0);
  EXPECT_DOUBLE_EQ(r.tokens_per_second, r.samples_per_second * 32);
  EXPECT_GT(r.peak_memory_bytes, 0);
  EXPECT_NE(r.compile_info.find("traced graph"), std::string::npos) << r.compile_info;
  // Overhead parts: the first step apart from the rest of the warm-up; they add up.
  EXPECT_GT(r.first_step_seconds, 0);
  EXPECT_NEAR(r.first_step_seconds + r.later_warmup_seconds, r.first_steps_seconds, 1e-9);
  EXPECT_NE(r.steady_state_stop.find("time cap"), std::string::npos) << r.steady_state_stop;
  EXPECT_LE(r.step_time_ci_low, r.step_time_median);
  EXPECT_GE(r.step_time_ci_high, r.step_time_median);
  EXPECT_DOUBLE_EQ(r.flops_per_step, training_flops(s.model, s.batch_size, s.seq_len).total());
}

// Timing stops when the median's CI is tight, and at the step cap when it cannot be (a 0.01% target).
TEST(Trial, SteadyStateStopsOnConfidenceIntervalOrStepCap) {
  TrialSpec s = tiny_spec();
  s.measure.warmup_steps = 2;
  s.measure.min_measure_steps = 6;
  s.measure.max_measure_steps = 40;
  s.measure.measure_seconds = 1e9;
  s.measure.ci_halfwidth = 0.5;  // +-50%: any quiet-enough machine gets there at the first chance, 6 steps
  const TrialResult loose = run_trial_in_process(s);
  ASSERT_EQ(loose.status, TrialStatus::ok) << loose.error_message;
  EXPECT_NE(loose.steady_state_stop.find("CI within"), std::string::npos) << loose.steady_state_stop;
  EXPECT_LT(loose.step_times.size(), 40u);
  s.measure.ci_halfwidth = 1e-6;
  s.measure.max_measure_steps = 8;
  const TrialResult strict = run_trial_in_process(s);
  EXPECT_EQ(strict.step_times.size(), 8u);
  EXPECT_NE(strict.steady_state_stop.find("step cap"), std::string::npos) << strict.steady_state_stop;
}

TEST(Trial, SequenceLongerThanPositionsIsInvalid) {
  TrialSpec s = tiny_spec();
  s.seq_len = 4096;
  const TrialResult r = run_trial_in_process(s);
  EXPECT_EQ(r.status, TrialStatus::invalid);
  EXPECT_NE(r.error_message.find("4096"), std::string::npos) << r.error_message;
}

TEST(Trial, IsolatedTrialOverMemoryCapIsOomAndLeavesReproducer) {
  const auto dir = temp_dir("trial");
  TrialSpec s = tiny_spec();
  s.model = resolve_model("bert-base-cased");
  s.seq_len = 128;
  s.memory_limit_bytes = 64LL << 20;  // 64 MiB cannot hold bert-base's 433 MB of weights
  const TrialResult r = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "t").string());
  EXPECT_EQ(r.status, TrialStatus::oom) << r.error_stage << ": " << r.error_message;
  for (const char* f : {"spec.json", "command.sh", "log.txt", "result.json"})
    EXPECT_TRUE(std::filesystem::exists(dir / "t" / f)) << f;
}

// GPU-only: skipped where torch::cuda::is_available() is false. A fresh trial process on CUDA, with a
// memory cap, so the allocator is capped before anything else touched the device.
TEST(Trial, GpuOnly_IsolatedCudaTrialWithMemoryCapIsOk) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "GPU-only: no CUDA device";
  const auto dir = temp_dir("trial");
  TrialSpec s = tiny_spec();
  s.step.device = "cuda";
  s.memory_limit_bytes = 4LL << 30;
  const TrialResult r = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "t").string());
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_stage << ": " << r.error_message;
  EXPECT_GT(r.peak_memory_bytes, 0);
  EXPECT_LT(r.peak_memory_bytes, s.memory_limit_bytes);
}

TEST(Trial, IsolatedTrialThatHangsIsTimeout) {
  const auto dir = temp_dir("trial");
  TrialSpec s = tiny_spec();
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = 1000000;
  s.timeout_seconds = 3;
  const TrialResult r = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "t").string());
  EXPECT_EQ(r.status, TrialStatus::timeout);
  EXPECT_LT(r.wall_seconds, 10);
}
