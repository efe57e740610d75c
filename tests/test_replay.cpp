// The replay landscape and runner: recorded points replay exactly, others interpolate, failures
// replay as a real trial's would, cost adds up; and the regret and cost of every strategy, printed.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "test_helpers.h"
#include "tuner_checks.h"
#include "tuners/grid_search.h"
#include "util/table_format.h"

using namespace tune;
using namespace tune::testing;

namespace {

constexpr int64_t kMiB = 1LL << 20;

TEST(ReplayLandscape, RecordedBatchReplaysAsRecorded) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const TrialResult r = landscape.replay({32, 1e-3, 0});
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r.samples_per_second, landscape.batch_at(32).samples_per_second);
  EXPECT_EQ(r.peak_memory_bytes, landscape.batch_at(32).peak_memory_bytes);
  EXPECT_EQ(static_cast<int>(r.losses.size()), landscape.default_train_steps());
}

TEST(ReplayLandscape, InterpolatesThroughputInLogBatchAndMemoryLinearly) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const RecordedBatch lo = landscape.batch_at(32), hi = landscape.batch_at(64), mid = landscape.batch_at(48);
  const double t = std::log2(48.0 / 32);
  EXPECT_NEAR(mid.samples_per_second, lo.samples_per_second + t * (hi.samples_per_second - lo.samples_per_second), 1e-9);
  EXPECT_NEAR(static_cast<double>(mid.peak_memory_bytes), (lo.peak_memory_bytes + hi.peak_memory_bytes) / 2.0, 1.0);
}

TEST(ReplayLandscape, BatchOverTheMemoryLimitReplaysAsOutOfMemory) {
  const ReplayLandscape landscape = bert_tiny_landscape(4 * kGiB);  // 400 MiB + 48 MiB per sample
  EXPECT_EQ(landscape.replay({72, 1e-3, 0}).status, TrialStatus::ok);   // 3856 MiB
  EXPECT_EQ(landscape.replay({80, 1e-3, 0}).status, TrialStatus::oom);  // 4240 MiB
  EXPECT_EQ(landscape.replay({128, 1e-3, 0}).status, TrialStatus::oom);
  EXPECT_EQ(landscape.replay({512, 1e-3, 0}).status, TrialStatus::oom);
  EXPECT_EQ(bert_tiny_landscape(3 * kGiB).replay({64, 1e-3, 0}).status, TrialStatus::oom);
  EXPECT_GT(landscape.batch_at(80).peak_memory_bytes, 4 * kGiB - kMiB);
}

TEST(ReplayLandscape, LossBetweenRecordedRatesLiesBetweenItsNeighbours) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const double lo = 1e-3, hi = 1e-3 * std::pow(10, 0.25), mid = std::sqrt(lo * hi);  // recorded: 4 per decade
  const auto a = landscape.replay({64, lo, 27}).losses, b = landscape.replay({64, hi, 27}).losses,
             m = landscape.replay({64, mid, 27}).losses;
  ASSERT_EQ(m.size(), 27u);
  bool differs = false;
  for (size_t i = 0; i < m.size(); ++i) {
    EXPECT_GE(m[i], std::min(a[i], b[i]) - 1e-12) << "step " << i;
    EXPECT_LE(m[i], std::max(a[i], b[i]) + 1e-12) << "step " << i;
    differs = differs || std::fabs(m[i] - a[i]) > 1e-6;
  }
  EXPECT_TRUE(differs) << "interpolation returned a neighbour";
}

TEST(ReplayLandscape, DivergingRunStopsAtItsFirstNonFiniteLoss) {
  const TrialResult r = bert_tiny_landscape().replay({64, 1e-1, 27});
  EXPECT_EQ(r.status, TrialStatus::diverged);
  ASSERT_FALSE(r.losses.empty());
  EXPECT_LT(r.losses.size(), 27u);
  EXPECT_TRUE(std::isnan(r.losses.back()));
  for (size_t i = 0; i + 1 < r.losses.size(); ++i) EXPECT_TRUE(std::isfinite(r.losses[i])) << i;
}

// Recorded: 1e-2 trains, 10^-1.75 (1.78e-2) ends in a NaN at step 24; the nearer neighbour decides.
TEST(ReplayLandscape, DivergenceStartsHalfwayBetweenRecordedRates) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const double halfway = std::pow(10, -1.875);
  EXPECT_EQ(landscape.replay({64, halfway * 0.97, 27}).status, TrialStatus::ok);
  EXPECT_EQ(landscape.replay({64, halfway * 1.03, 27}).status, TrialStatus::diverged);
}

TEST(ReplayLandscape, ShorterRunIsThePrefixOfTheLongerOne) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const auto shorter = landscape.replay({16, 3e-4, 9}), longer = landscape.replay({16, 3e-4, 27});
  ASSERT_EQ(shorter.losses.size(), 9u);
  for (size_t i = 0; i < shorter.losses.size(); ++i) EXPECT_DOUBLE_EQ(shorter.losses[i], longer.losses[i]);
  EXPECT_NE(shorter.score_loss, longer.score_loss);
}

TEST(ReplayLandscape, StepsBeyondTheRecordingThrowQuotingThem) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  EXPECT_NE(error_of([&] { landscape.replay({16, 3e-4, 500}); }).find("500"), std::string::npos);
}

TEST(ReplayRunner, CostIsTheSumOfEachTrialsOverheadAndSteps) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const ReplayRun run = replay_tuner("grid", lr_stage_space(), landscape);
  double sum = 0;
  for (const auto& t : run.trials) {
    const double step_time = t.candidate.batch_size / landscape.batch_at(t.candidate.batch_size).samples_per_second;
    EXPECT_NEAR(t.result.wall_seconds, landscape.trial_overhead_seconds() + t.result.losses.size() * step_time, 1e-9);
    sum += t.result.wall_seconds;
  }
  EXPECT_NEAR(run.cost_seconds, sum, 1e-9);
  EXPECT_GT(run.cost_seconds, 0);
}

TEST(ReplayRunner, StopsATunerThatWantsMoreThanMaxTrials) {
  GridSearch uncapped(lr_stage_space());  // 9 points, no registry cap
  const ReplayRun run = run_tuner(uncapped, bert_tiny_landscape(), 3);
  EXPECT_EQ(run.trials.size(), 3u);
  EXPECT_FALSE(run.finished);
}

// Regret against the exhaustive grid, and simulated cost, per strategy and stage (printed for the record).
void report_stage(const TunerSpace& space, const ReplayLandscape& landscape, std::vector<std::vector<std::string>>& rows) {
  const ReplayRun grid = replay_tuner("grid", space, landscape);
  ASSERT_TRUE(grid.best);
  const bool batch_stage = space.objective == StageObjective::throughput;
  const double reference = batch_stage ? landscape.batch_at(fastest_fitting_batch(landscape)).samples_per_second
                                       : grid.best->second.score_loss;
  for (const auto& name : tuners_for(space.objective)) {
    const ReplayRun run = replay_tuner(name, space, landscape);
    ASSERT_TRUE(run.best) << name;
    const double value = batch_stage ? run.best->second.samples_per_second : run.best->second.score_loss;
    const double shortfall = regret(value, reference, batch_stage ? Better::higher : Better::lower);
    EXPECT_GE(shortfall, batch_stage ? 0.0 : -0.05) << name;
    rows.push_back({to_string(space.objective), name, std::to_string(run.trials.size()), strf("%.1f", run.cost_seconds),
                    strf("%.2f", run.cost_seconds / grid.cost_seconds), strf("%d", run.best->first.batch_size),
                    strf("%.2e", run.best->first.learning_rate), strf("%.4g", value), strf("%+.2f%%", 100 * shortfall),
                    run.stop_reason.substr(0, 90)});
  }
}

TEST(ReplayReport, PrintsRegretAndCostOfEveryStrategy) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  std::vector<std::vector<std::string>> rows;
  report_stage(batch_stage_space(), landscape, rows);
  report_stage(lr_stage_space(), landscape, rows);
  EXPECT_EQ(rows.size(), tuners_for(StageObjective::throughput).size() + tuners_for(StageObjective::loss).size());
  write_markdown_table(std::cout, {"stage", "tuner", "trials", "cost s", "cost/grid", "batch", "lr", "samples/s or loss",
                                   "regret", "stop reason"}, rows);
}

}  // namespace
