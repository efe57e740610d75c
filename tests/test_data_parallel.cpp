// Data-parallel trials for real on this machine's CPUs: 2 ranks (processes) of 1 thread each over gloo. Two ranks
// at batch B train the losses one process trains at 2B (fp32, no dropout); a throughput trial gives the scaling
// figures (rank 0 alone against all ranks, per round), each rank's peak memory and the exposed communication; a
// rank that runs out of memory, is killed or hangs ends the trial for all with its typed status, and no rank is
// left running. Timed (each rank takes a core): in tune_timed_tests.
#include <gtest/gtest.h>

#include "family_checks.h"
#include "test_helpers.h"
#include "trial/data_parallel.h"
#include "trial/trial_process.h"
#include "trial/trial_runner.h"

using namespace tune;
using tune::testing::processes_mentioning;
using tune::testing::temp_dir;

namespace {

TrialSpec two_rank_spec(const std::string& model) {
  TrialSpec s;
  s.model = tune::testing::without_dropout(model);
  s.seq_len = 32;
  s.batch_size = 4;
  s.learning_rate = 1e-3;
  s.seed = 11;
  s.threads = 2;  // one per rank
  s.data.corpus_path = "synthetic";
  s.measure.warmup_steps = 2;
  s.distributed.ranks = 2;
  s.distributed.scaling_rounds = 2;
  s.distributed.block_steps = 2;
  s.distributed.bucket_cap_mb = 0.05;  // several buckets even for a tiny model: the overlap path runs
  s.timeout_seconds = 600;
  return s;
}

TrialResult run_isolated(const TrialSpec& s, const std::filesystem::path& dir) {
  return run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "t").string());
}

}  // namespace

TEST(DataParallel, TwoRanksTrainTheLossesOfOneProcessAtTwiceTheBatch) {
  TrialSpec s = two_rank_spec("gpt2-tiny");  // causal LM: every row scores the same number of tokens
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = 6;
  s.learning_rate = 1e-2;  // the loss moves far beyond the tolerance: a rank stepping on its half alone would show
  const auto dir = temp_dir("dp-losses");
  const TrialResult parallel = run_isolated(s, dir / "parallel");
  ASSERT_TRUE(parallel.ok()) << parallel.error_stage << ": " << parallel.error_message;
  TrialSpec one = s;
  one.distributed.ranks = 1;
  one.batch_size = 2 * s.batch_size;
  one.threads = 1;
  const TrialResult single = run_isolated(one, dir / "single");
  ASSERT_TRUE(single.ok()) << single.error_message;
  ASSERT_EQ(parallel.losses.size(), 6u);
  ASSERT_EQ(single.losses.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(parallel.losses[i], single.losses[i], 1e-4 * single.losses[i]) << "step " << i + 1;
  // The curve moved far beyond the tolerance: the averaged gradients were applied, and equal a 2B step's.
  EXPECT_GT(std::abs(parallel.losses.front() - parallel.losses.back()), 0.02);
}

TEST(DataParallel, AThroughputTrialGivesTheScalingFiguresOfEveryRank) {
  const auto dir = temp_dir("dp-throughput");
  const TrialResult r = run_isolated(two_rank_spec("bert-tiny"), dir);
  ASSERT_TRUE(r.ok()) << r.error_stage << ": " << r.error_message;
  const DataParallelPart& d = r.data_parallel;
  EXPECT_EQ(d.ranks, 2);
  EXPECT_EQ(d.per_rank_batch, 4);
  EXPECT_EQ(d.comm_backend, "gloo");
  EXPECT_GT(d.buckets, 1);
  EXPECT_EQ(d.solo_block_times.size(), 2u);
  EXPECT_EQ(d.parallel_block_times.size(), 2u);
  EXPECT_EQ(d.exposed_comm_seconds.size(), 4u);
  ASSERT_EQ(d.rank_peak_memory_bytes.size(), 2u);
  EXPECT_GT(d.rank_peak_memory_bytes[1], 0);
  EXPECT_GT(r.samples_per_second, 0);
  EXPECT_EQ(r.losses.size(), 2u + 2 * 2);
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

TEST(DataParallel, ARankOutOfMemoryEndsTheTrialForAllAsOom) {
  TrialSpec s = two_rank_spec("bert-tiny");
  s.test.rank_fault = "oom";
  const auto dir = temp_dir("dp-oom");
  const TrialResult r = run_isolated(s, dir);
  EXPECT_EQ(r.status, TrialStatus::oom) << r.error_message;
  EXPECT_EQ(r.error_stage, "rank 1");
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

TEST(DataParallel, AKilledRankEndsTheTrialAndNoRankIsLeft) {
  TrialSpec s = two_rank_spec("bert-tiny");
  s.test.rank_fault = "kill";
  const auto dir = temp_dir("dp-kill");
  const TrialResult r = run_isolated(s, dir);
  EXPECT_EQ(r.status, TrialStatus::oom) << r.error_message;
  EXPECT_NE(r.error_message.find("rank 1 was killed by signal 9"), std::string::npos) << r.error_message;
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

TEST(DataParallel, AHungRankIsKilledAfterTheCollectiveTimeout) {
  TrialSpec s = two_rank_spec("bert-tiny");
  s.test.rank_fault = "hang";
  s.distributed.collective_timeout_seconds = 5;
  const auto dir = temp_dir("dp-hang");
  const TrialResult r = run_isolated(s, dir);
  EXPECT_EQ(r.status, TrialStatus::timeout) << r.error_message;
  EXPECT_NE(r.error_message.find("rank 1 sent nothing for 5 s"), std::string::npos) << r.error_message;
  EXPECT_LT(r.wall_seconds, 120);
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

TEST(DataParallel, WhatCannotRunDataParallelIsInvalidWithItsReason) {
  TrialSpec s = two_rank_spec("bert-tiny");
  s.step.backend = "inductor";
  EXPECT_NE(tune::testing::error_of([&] { check_data_parallel_spec(s); }).find("not built yet"), std::string::npos);
  s.step.backend = "eager";
  s.step.device = "cuda";
  EXPECT_NE(tune::testing::error_of([&] { check_data_parallel_spec(s); }).find("'nccl'"), std::string::npos);
  s.step.device = "cpu";
  s.distributed.ranks = 1;
  EXPECT_NE(tune::testing::error_of([&] { check_data_parallel_spec(s); }).find("1 rank(s)"), std::string::npos);
}
