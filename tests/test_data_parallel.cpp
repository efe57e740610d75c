// Data-parallel trials for real on this machine's CPUs: 2 ranks (processes) of 1 thread each over gloo. Two ranks
// at batch B train the losses one process trains at 2B (fp32, no dropout); a throughput trial gives the scaling
// figures (rank 0 alone against all ranks, per round), each rank's peak memory and the exposed communication; a
// rank that runs out of memory, is killed or hangs ends the trial for all with its typed status, and no rank is
// left running. Timed (each rank takes a core): in tune_timed_tests.
#include <gtest/gtest.h>

#include "family_checks.h"
#include "test_helpers.h"
#include "trial/backend_registry.h"
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

// One process at twice the batch, trained as many steps as the data-parallel trial's parallel steps from the same
// start, trains the same losses within fp32 tolerance; and the curve moved far beyond it (a rank stepping on its
// half alone would show).
void expect_losses_of_one_process_at_twice_the_batch(const TrialSpec& s, const TrialResult& parallel,
                                                     const std::filesystem::path& dir) {
  ASSERT_TRUE(parallel.ok()) << parallel.error_stage << ": " << parallel.error_message;
  EXPECT_GT(parallel.samples_per_second, 0);  // a rate trial's steps are timed too (they had read 0)
  TrialSpec one = s;
  one.distributed.ranks = 1;
  one.batch_size = 2 * s.batch_size;
  one.threads = 1;
  one.purpose = TrialPurpose::learning_rate;
  one.train_steps = static_cast<int>(parallel.losses.size());
  const TrialResult single = run_isolated(one, dir / "single");
  ASSERT_TRUE(single.ok()) << single.error_message;
  ASSERT_EQ(parallel.losses.size(), 6u);
  ASSERT_EQ(single.losses.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(parallel.losses[i], single.losses[i], 1e-4 * single.losses[i]) << "step " << i + 1;
  EXPECT_GT(std::abs(parallel.losses.front() - parallel.losses.back()), 0.02);
}

}  // namespace

TEST(DataParallel, TwoRanksTrainTheLossesOfOneProcessAtTwiceTheBatch) {
  TrialSpec s = two_rank_spec("gpt2-tiny");  // causal LM: every row scores the same number of tokens
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = 6;
  s.learning_rate = 1e-2;  // the loss moves far beyond the tolerance: a rank stepping on its half alone would show
  const auto dir = temp_dir("dp-losses");
  expect_losses_of_one_process_at_twice_the_batch(s, run_isolated(s, dir / "parallel"), dir);
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
  EXPECT_EQ(r.peak_memory_bytes, std::max(d.rank_peak_memory_bytes[0], d.rank_peak_memory_bytes[1]));  // the row's
  EXPECT_GT(r.samples_per_second, 0);
  EXPECT_EQ(r.losses.size(), 2u + 2 * 2);
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

// The Python worker's route (trial/worker_data_parallel.h): HF's module under DDP, one worker per rank. Its parallel
// steps train the losses of one process at twice the batch, with rank 0's solo and unsynced blocks between them (their
// state put back: they must not move the parallel training), and a throughput trial gives every figure.
TEST(WorkerDataParallel, DdpRanksTrainOneProcessesLossesAndRank0sBlocksAloneLeaveThemAsTheyWere) {
  TrialSpec s = two_rank_spec("gpt2-tiny");
  apply_backend_label(s.step, "hf-eager");
  s.learning_rate = 1e-2;
  const auto dir = temp_dir("dp-worker");
  const TrialResult parallel = run_isolated(s, dir / "parallel");  // 2 warm-up + 2 rounds x 2 steps, rounds between
  expect_losses_of_one_process_at_twice_the_batch(s, parallel, dir);
  ASSERT_TRUE(parallel.ok());
  const DataParallelPart& d = parallel.data_parallel;
  EXPECT_EQ(d.solo_block_times.size(), 2u);
  EXPECT_EQ(d.unsynced_block_times.size(), 2u);
  EXPECT_EQ(d.parallel_block_times.size(), 2u);
  EXPECT_EQ(d.exposed_comm_seconds.size(), 2u);
  EXPECT_GT(d.buckets, 1) << "buckets of 0.05 MB: DDP's reducer makes several";
  ASSERT_EQ(d.rank_peak_memory_bytes.size(), 2u);
  EXPECT_GT(d.rank_peak_memory_bytes[1], 0);
  EXPECT_EQ(parallel.peak_memory_bytes, std::max(d.rank_peak_memory_bytes[0], d.rank_peak_memory_bytes[1]));
  EXPECT_NE(parallel.compile_info.find("DDP(bucket_cap_mb=0.05"), std::string::npos) << parallel.compile_info;
  EXPECT_NE(describe_data_parallel(d).find("DDP without communication"), std::string::npos) << describe_data_parallel(d);
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

// A learning-rate trial under DDP (no rounds: its steps are all parallel) times its steps past the warm-up, as a
// one-process rate trial does: samples/s over both ranks (it had read 0.00).
TEST(WorkerDataParallel, ARateTrialTimesItsParallelSteps) {
  TrialSpec s = two_rank_spec("gpt2-tiny");
  apply_backend_label(s.step, "hf-eager");
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = 5;
  const auto dir = temp_dir("dp-worker-rate");
  const TrialResult r = run_isolated(s, dir);
  ASSERT_TRUE(r.ok()) << r.error_stage << ": " << r.error_message;
  EXPECT_EQ(r.losses.size(), 5u);
  EXPECT_EQ(r.step_times.size(), 5u - static_cast<size_t>(s.measure.warmup_steps));
  EXPECT_GT(r.samples_per_second, 0);
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

// Compiled under DDP: torch.compile takes the DDP module, DDPOptimizer splits its graph at the buckets, rank 0's solo
// model compiles on its own; the parallel steps train as hf-eager's do.
TEST(WorkerDataParallel, ACompiledStepUnderDdpIsSplitAtItsBucketsAndTrainsAsHfEagerDoes) {
  TrialSpec s = two_rank_spec("bert-tiny");
  // DDPOptimizer takes no bucket under DDP's first (1 MB): wider feed-forwards give bert-tiny 2.3 MB of parameters.
  s.distributed.bucket_cap_mb = 1;
  s.model.intermediate_size = 2048;
  s.model.hf["intermediate_size"] = 2048;
  apply_backend_label(s.step, "hf-eager");
  const auto dir = temp_dir("dp-inductor");
  const TrialResult eager = run_isolated(s, dir / "hf-eager");
  ASSERT_TRUE(eager.ok()) << eager.error_stage << ": " << eager.error_message;
  apply_backend_label(s.step, "inductor");
  const TrialResult compiled = run_isolated(s, dir / "inductor");
  ASSERT_TRUE(compiled.ok()) << compiled.error_stage << ": " << compiled.error_message;
  ASSERT_EQ(compiled.losses.size(), eager.losses.size());
  for (size_t i = 0; i < eager.losses.size(); ++i) EXPECT_NEAR(compiled.losses[i], eager.losses[i], 2e-3) << "step " << i + 1;
  EXPECT_GT(compiled.data_parallel.buckets, 1) << compiled.compile_info;
  EXPECT_NE(compiled.compile_info.find("DDPOptimizer split the compiled graph at"), std::string::npos) << compiled.compile_info;
  EXPECT_NE(compiled.compile_info.find("rank 0's solo model (no DDP) compiled in"), std::string::npos) << compiled.compile_info;
  EXPECT_GT(compiled.compile_seconds, 0);
  // The trial's compile is the parallel member's: cold, though the solo model then finds some graphs it left.
  EXPECT_EQ(compiled.compile_cache, "cold") << compiled.compile_info;
  EXPECT_EQ(compiled.data_parallel.unsynced_block_times.size(), 2u);
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

// The failures, on both routes: libtorch's ranks (eager) and the Python worker's DDP ranks (hf-eager).
class RankFailure : public ::testing::TestWithParam<std::string> {
 protected:
  TrialSpec spec_with(const std::string& fault) const {
    TrialSpec s = two_rank_spec("bert-tiny");
    apply_backend_label(s.step, GetParam());
    s.test.rank_fault = fault;
    return s;
  }
};

TEST_P(RankFailure, ARankOutOfMemoryEndsTheTrialForAllAsOom) {
  const auto dir = temp_dir("dp-oom");
  const TrialResult r = run_isolated(spec_with("oom"), dir);
  EXPECT_EQ(r.status, TrialStatus::oom) << r.error_message;
  EXPECT_EQ(r.error_stage, "rank 1") << r.error_message;
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

TEST_P(RankFailure, AKilledRankEndsTheTrialAndNoRankIsLeft) {
  const auto dir = temp_dir("dp-kill");
  const TrialResult r = run_isolated(spec_with("kill"), dir);
  EXPECT_EQ(r.status, TrialStatus::oom) << r.error_message;
  EXPECT_EQ(r.error_stage, "rank 1") << r.error_message;
  EXPECT_NE(r.error_message.find("killed by signal 9"), std::string::npos) << r.error_message;
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

TEST_P(RankFailure, AHungRankIsKilledAfterTheCollectiveTimeout) {
  TrialSpec s = spec_with("hang");
  s.distributed.collective_timeout_seconds = 5;
  const auto dir = temp_dir("dp-hang");
  const TrialResult r = run_isolated(s, dir);
  EXPECT_EQ(r.status, TrialStatus::timeout) << r.error_message;
  EXPECT_NE(r.error_message.find("rank 1 sent nothing for"), std::string::npos) << r.error_message;
  EXPECT_LT(r.wall_seconds, 120);
  EXPECT_EQ(processes_mentioning(dir.string()), 0);
}

INSTANTIATE_TEST_SUITE_P(BothRoutes, RankFailure, ::testing::Values("eager", "hf-eager"),
                         [](const auto& info) { return info.param == "eager" ? std::string("Libtorch") : std::string("PythonWorker"); });

TEST(DataParallel, WhatCannotRunDataParallelIsInvalidWithItsReason) {
  TrialSpec s = two_rank_spec("bert-tiny");
  s.step.observer = "profiler";
  EXPECT_NE(tune::testing::error_of([&] { check_data_parallel_spec(s); }).find("observers under data parallelism"),
            std::string::npos);
  s.step.observer = "";
  s.distributed.comm_backend = "nccl";
  EXPECT_NE(tune::testing::error_of([&] { check_data_parallel_spec(s); }).find("'nccl' on cpu"), std::string::npos);
  s.distributed.comm_backend = "auto";
  s.distributed.ranks = 1;
  EXPECT_NE(tune::testing::error_of([&] { check_data_parallel_spec(s); }).find("1 rank(s)"), std::string::npos);
}
