// A data-parallel trial's figures from its result (trial/data_parallel_figures.h): the scaling efficiency per round
// and its interval, the exposed communication's share, the sentence; and the study key a data-parallel row gets.
#include <gtest/gtest.h>

#include "store/database.h"
#include "trial/data_parallel_figures.h"

using namespace tune;

namespace {

DataParallelPart two_ranks() {
  DataParallelPart d;
  d.ranks = 2;
  d.per_rank_batch = 8;
  d.comm_backend = "gloo";
  d.solo_block_times = {0.10, 0.11, 0.10, 0.12};
  d.parallel_block_times = {0.125, 0.1375, 0.125, 0.15};  // 0.8 of perfect scaling, every round
  d.exposed_comm_seconds = {0.01, 0.0125, 0.015};
  d.rank_peak_memory_bytes = {512LL << 20, 520LL << 20};
  return d;
}

}  // namespace

TEST(DataParallelFigures, ScalingEfficiencyIsSoloOverParallelStepTimePerRound) {
  const PairedRatio e = scaling_efficiency(two_ranks());
  EXPECT_EQ(e.rounds, 4);
  EXPECT_NEAR(e.ratio, 0.8, 1e-9);
  EXPECT_NEAR(e.ci_low, 0.8, 1e-9);
  EXPECT_NEAR(exposed_comm_share(two_ranks()), 0.0125 / 0.13125, 1e-9);  // median wait over median step
}

TEST(DataParallelFigures, TheSentenceGivesRanksBatchEfficiencyCommunicationAndMemory) {
  EXPECT_EQ(describe_data_parallel(two_ranks()),
            "2 ranks x batch 8 (gloo): scaling efficiency 0.80 (95% CI 0.80-0.80, 4 rounds), communication not hidden "
            "by the backward 10% of a step, peak memory per rank 512-520 MiB");
  EXPECT_EQ(describe_data_parallel(DataParallelPart{}), "");  // one process
}

// The Python worker's DDP adds rank 0's unsynced rounds (its DDP step under no_sync): over its solo rounds, what DDP
// costs beside its communication, said after the exposed share; libtorch's route has none and says nothing of it.
TEST(DataParallelFigures, UnsyncedRoundsGiveWhatDdpCostsWithoutItsCommunication) {
  DataParallelPart d = two_ranks();
  EXPECT_EQ(ddp_wrapping_cost(d).rounds, 0);
  d.unsynced_block_times = {0.105, 0.1155, 0.105, 0.126};  // 1.05x the solo step, every round
  d.buckets = 7;
  const PairedRatio wrapping = ddp_wrapping_cost(d);
  EXPECT_EQ(wrapping.rounds, 4);
  EXPECT_NEAR(wrapping.ratio, 1.05, 1e-9);
  EXPECT_EQ(describe_data_parallel(d),
            "2 ranks x batch 8 (gloo): scaling efficiency 0.80 (95% CI 0.80-0.80, 4 rounds), communication not hidden "
            "by the backward 10% of a step, DDP without communication 1.05x the one-process step (95% CI 1.05-1.05, 7 "
            "buckets), peak memory per rank 512-520 MiB");
}

// A learning-rate trial has no rounds: its parallel steps past the warm-up are its timed steps, so samples/s is the
// global batch over their median (it had read 0.00); a throughput trial's come from its rounds alone.
TEST(DataParallelFigures, ARateTrialsParallelStepsGiveItsSamplesPerSecond) {
  TrialSpec spec;
  spec.purpose = TrialPurpose::learning_rate;
  spec.batch_size = 4;
  spec.seq_len = 16;
  spec.distributed.ranks = 2;
  spec.distributed.block_steps = 1;
  spec.measure.warmup_steps = 2;
  TrialResult r;
  keep_rate_trial_steps(spec, {9.0, 3.0, 0.5, 0.4, 0.6}, r);
  summarise_data_parallel(spec, {{2.0, 1.9, 1.8, 1.7, 1.6}, {2.2, 2.1, 2.0, 1.9, 1.8}}, r);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.step_times, (std::vector<double>{0.5, 0.4, 0.6}));
  EXPECT_NEAR(r.samples_per_second, 8 / 0.5, 1e-9);
  TrialResult throughput;
  spec.purpose = TrialPurpose::throughput;
  keep_rate_trial_steps(spec, {9.0, 3.0, 0.5}, throughput);
  EXPECT_TRUE(throughput.step_times.empty());
}

TEST(DataParallelFigures, ADataParallelStudyHasAKeyOfItsOwnAndOneRankKeepsTheOldKey) {
  EXPECT_EQ(step_options_key("math", "adamw"), kDefaultStepOptions);
  EXPECT_EQ(step_options_key("math", "adamw", 1), kDefaultStepOptions);
  EXPECT_EQ(step_options_key("math", "adamw", 2), "attention=math,optimizer=adamw,ranks=2");
  EXPECT_EQ(step_option(step_options_key("sdpa", "fused", 4), "ranks"), "4");
}

TEST(DataParallelFigures, EachGpuRankTrainsOnAGpuOfItsOwnAndCpuRanksShareTheCpu) {
  TrialSpec s;
  s.distributed.ranks = 2;
  s.threads = 16;
  s.memory_limit_bytes = 80LL << 30;
  s.step.device = "cuda";
  const TrialSpec rank1 = rank_share_spec(s, 1);
  EXPECT_EQ(rank_share_spec(s, 0).step.device, "cuda:0");
  EXPECT_EQ(rank1.step.device, "cuda:1");
  EXPECT_EQ(rank1.memory_limit_bytes, 80LL << 30);  // its own device, capped as one trial's
  EXPECT_EQ(rank1.threads, 8);                      // the host's threads are shared
  s.step.device = "cuda:2";
  EXPECT_EQ(rank_share_spec(s, 1).step.device, "cuda:3");
  s.step.device = "cpu";
  EXPECT_EQ(rank_share_spec(s, 1).step.device, "cpu");
  EXPECT_EQ(rank_share_spec(s, 1).memory_limit_bytes, 40LL << 30);  // one memory, shared
  EXPECT_THROW(rank_device("cuda:x", 1), std::invalid_argument);
}

TEST(DataParallelFigures, RanksThatDoNotEachHaveAGpuAreRefusedNamingTheDevices) {
  EXPECT_NO_THROW(check_rank_gpus("cuda", 2, 2));
  EXPECT_NO_THROW(check_rank_gpus("cpu", 8, 1));
  try {
    check_rank_gpus("cuda", 2, 1);
    FAIL() << "two NCCL ranks on one GPU were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "2 ranks from cuda need cuda:0 to cuda:1, but this machine has 1 CUDA device(s): NCCL runs "
                           "one rank per GPU");
  }
  EXPECT_THROW(check_rank_gpus("cuda:1", 2, 2), std::invalid_argument);  // cuda:2 does not exist
}

TEST(DataParallelFigures, GlooRunsOnACpuAndNcclOnGpus) {
  TrialSpec s;
  s.distributed.ranks = 2;
  s.step.device = "cuda";
  EXPECT_EQ(comm_backend(s), "nccl");
  EXPECT_NO_THROW(check_data_parallel_spec(s));
  s.distributed.comm_backend = "gloo";
  EXPECT_THROW(check_data_parallel_spec(s), std::invalid_argument);
  s.step.device = "cpu";
  EXPECT_NO_THROW(check_data_parallel_spec(s));
  s.distributed.comm_backend = "nccl";
  try {
    check_data_parallel_spec(s);
    FAIL() << "nccl on a CPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "communication backend 'nccl' on cpu: expected gloo on a CPU, nccl on a GPU");
  }
}
