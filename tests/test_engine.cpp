// The search engine on a simulated machine (no libtorch): the batch ramp stops at out-of-memory or
// flat throughput, the learning rate with the lowest loss wins, failures are recorded and the
// search goes on, and a rerun reuses every committed trial. Its trial-time predictor on made-up trials
// and on the committed GPU search's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "bert_tiny_landscape.h"
#include "engine/search_engine.h"
#include "engine/stage_list.h"
#include "engine/trial_time_predictor.h"
#include "engine/tuner_replay.h"
#include "report/table_cells.h"
#include "report/tested_models_table.h"
#include "stats/statistics.h"
#include "test_helpers.h"
#include "tuners/batch_ramp.h"
#include "tuners/tuner_registry.h"
#include "util/join.h"
#include "util/paths.h"
#include "util/table_format.h"

using namespace tune;
using tune::testing::temp_dir;

namespace {

// Throughput grows with the batch (less and less), memory runs out at 64; best learning rate 3e-4.
TrialResult simulated_trial(const TrialSpec& spec) {
  if (spec.step.backend == "broken") return failed_result(TrialStatus::compile_error, "trace", "unsupported op aten::foo");
  if (spec.batch_size >= 64) return failed_result(TrialStatus::oom, "run", "not enough memory");
  TrialResult r;
  r.status = TrialStatus::ok;
  const double speed = spec.step.backend == "jit" ? 1.5 : 1.0;
  r.samples_per_second = speed * 10.0 * spec.batch_size / (1.0 + 0.01 * spec.batch_size);
  r.step_time_median = spec.batch_size / r.samples_per_second;
  r.compile_overhead_seconds = spec.step.backend == "jit" ? 5.0 : 0.1;
  r.peak_memory_bytes = spec.batch_size * (1LL << 20);
  r.flops_per_step = 1e9 * spec.batch_size;
  if (spec.step.precision == "bf16") r.samples_per_second *= 2;
  r.score_loss = 5.0 + std::fabs(std::log10(spec.learning_rate) - std::log10(3e-4));
  r.wall_seconds = 0.001;
  return r;
}

struct EngineFixture : ::testing::Test {
  void SetUp() override {
    dir = temp_dir("engine");
    request.model.name = "sim";
    request.model.vocab_size = 100;
    request.instance.device_name = "simulated";
    request.instance.memory_bytes = 1LL << 30;
    request.libtorch_version = "test";
    request.seq_len = 32;
    request.runs_dir = (dir / "runs").string();
    settings.max_batch_size = 256;
    settings.learning_rates = {1e-5, 1e-4, 3e-4, 1e-3};
  }
  SearchSummary search(Database& db, int* calls) {
    SearchEngine engine(db, [calls](const TrialSpec& s, const std::string&) { ++*calls; return simulated_trial(s); },
                        settings, progress);
    return engine.run(request, 3600);
  }
  std::filesystem::path dir;
  SearchRequest request;
  SearchSettings settings;
  std::ostringstream progress;
};

}  // namespace

TEST_F(EngineFixture, RampStopsAtOomAndSweepPicksLowestLoss) {
  Database db((dir / "t.db").string());
  int calls = 0;
  request.backends = {"eager"};
  const auto summary = search(db, &calls);
  ASSERT_EQ(summary.backends.size(), 1u);
  const auto& eager = summary.backends[0];
  ASSERT_TRUE(eager.best.has_value()) << eager.failure;
  EXPECT_EQ(eager.best->batch_size, 32);  // 64 ran out of memory; 32 was the fastest that fit
  EXPECT_FALSE(eager.best->batch_capped_by_range());
  EXPECT_NE(eager.ramp_stop.find("batch 64: oom"), std::string::npos) << eager.ramp_stop;
  EXPECT_DOUBLE_EQ(eager.best->learning_rate, 3e-4);
  EXPECT_EQ(calls, 7 + 4);  // batches 1..64 and four learning rates
}

// The default list, in the order a search runs it, for each objective.
TEST(StageList, TheDefaultListFollowsTheObjective) {
  SearchSettings settings;
  EXPECT_EQ(stage_names(default_stages(settings)), "screen, batch, horizon, learning-rate, seed-check, confirm");
  settings.objective = "time-to-loss";
  EXPECT_EQ(stage_names(default_stages(settings)), "screen, batch, time-to-loss, confirm");
}

namespace {

// A pair stage of the test's own: the batch stage's best as the answer, at the ramp's rate (no rate trials).
struct KeepTheFastestBatch : SearchStage {
  std::string name() const override { return "keep-fastest"; }
  StageScope scope() const override { return StageScope::pair; }
  void run_pair(SearchRun& search, PairSearch& pair) override { pair.best = speed_config(search, pair, *pair.ramp->best); }
};

// The batch stage, the ramp's fastest as each pair's answer, then the confirmation.
StageList ramp_then_confirm(const SearchSettings& settings) {
  StageList stages;
  stages.push_back(make_batch_stage(settings));
  stages.push_back(std::make_unique<KeepTheFastestBatch>());
  stages.push_back(make_confirm_stage(settings));
  return stages;
}

// A search-scope stage of the test's own after the pairs: sees every pair's outcome, as a confirmation stage would.
struct CountThePairs : SearchStage {
  explicit CountThePairs(std::vector<std::string>& seen) : seen(seen) {}
  std::string name() const override { return "count"; }
  StageScope scope() const override { return StageScope::search; }
  void run_search(SearchRun& search) override {
    for (const auto& outcome : search.summary.backends)
      seen.push_back(outcome.backend + (outcome.best ? ":" + std::to_string(outcome.best->batch_size) : ":none"));
  }
  std::vector<std::string>& seen;
};

}  // namespace

// A search built from a list of its own: the batch stage, a pair stage and a search stage of the test's; no
// learning-rate trial runs, each pair's best is stored, and the last stage sees both pairs' outcomes.
TEST_F(EngineFixture, ASearchRunsACustomStageList) {
  Database db((dir / "t.db").string());
  std::vector<std::string> seen;
  StageList stages;
  stages.push_back(make_batch_stage(settings));
  stages.push_back(std::make_unique<KeepTheFastestBatch>());
  stages.push_back(std::make_unique<CountThePairs>(seen));
  std::vector<TrialPurpose> purposes;
  SearchEngine engine(db, [&](const TrialSpec& s, const std::string&) {
    purposes.push_back(s.purpose);
    return simulated_trial(s);
  }, settings, progress, std::move(stages));
  request.backends = {"eager", "jit"};
  const SearchSummary summary = engine.run(request, 3600);
  EXPECT_EQ(seen, (std::vector<std::string>{"eager:32", "jit:32"}));
  EXPECT_EQ(purposes.size(), 14u);  // batches 1..64 for each backend, nothing else
  EXPECT_TRUE(std::all_of(purposes.begin(), purposes.end(), [](TrialPurpose p) { return p == TrialPurpose::throughput; }));
  ASSERT_EQ(db.best_rows().size(), 2u);
  EXPECT_DOUBLE_EQ(db.best_rows()[0].best.learning_rate, settings.ramp_learning_rate);
  EXPECT_EQ(summary.backends[0].lr_stop, "");  // no learning-rate stage in the list
}

namespace {

// A search of eager and jit through the batch stage and the confirmation, jit's repeats at `jit_over_eager[r - 1]`
// times eager's samples/s in round r; the order the repeats ran in (backend:repeat) and the table row it leaves.
struct ConfirmedSearch {
  std::vector<std::string> order;
  TableRow row;
  std::set<double> search_measure_seconds, round_measure_seconds;  // what the specs carried
};
ConfirmedSearch confirmed_search(EngineFixture& f, const std::vector<double>& jit_over_eager) {
  Database db((f.dir / "t.db").string());
  f.settings.confirm_rounds = static_cast<int>(jit_over_eager.size());
  StageList stages;
  stages.push_back(make_batch_stage(f.settings));
  stages.push_back(std::make_unique<KeepTheFastestBatch>());
  stages.push_back(make_confirm_stage(f.settings));
  ConfirmedSearch out;
  SearchEngine engine(db, [&](const TrialSpec& s, const std::string&) {
    TrialSpec as_eager = s;
    as_eager.step.backend = "eager";
    TrialResult r = simulated_trial(as_eager);
    (s.repeat == 0 ? out.search_measure_seconds : out.round_measure_seconds).insert(s.measure.measure_seconds);
    if (s.repeat == 0) return r;
    out.order.push_back(s.step.backend + ":" + std::to_string(s.repeat));
    if (s.step.backend == "jit" && jit_over_eager[s.repeat - 1] <= 0)  // that round's jit trial crashes
      return failed_result(TrialStatus::crashed, "run", "segfault");
    if (s.step.backend == "jit") r.samples_per_second *= jit_over_eager[s.repeat - 1];
    return r;
  }, f.settings, f.progress, std::move(stages));
  f.request.backends = {"eager", "jit"};
  engine.run(f.request, 3600);
  const TestedModelsTable table = gather_tested_models(db, "t.db");
  EXPECT_EQ(table.rows.size(), 1u);
  if (!table.rows.empty()) out.row = table.rows[0];
  return out;
}

}  // namespace

// The confirmation repeats each side's best-batch trial in alternating rounds, and the row's verdict is the interval
// of those rounds' ratios, not the stages' single trials (here equal: the stages alone would say 1.00x).
TEST_F(EngineFixture, TheConfirmationAlternatesRoundsAndTheRowGivesThePairedVerdict) {
  const ConfirmedSearch faster = confirmed_search(*this, {1.20, 1.25, 1.18, 1.22});
  EXPECT_EQ(faster.order, (std::vector<std::string>{"eager:1", "jit:1", "jit:2", "eager:2", "eager:3", "jit:3",
                                                    "jit:4", "eager:4"}));
  EXPECT_DOUBLE_EQ(faster.row.best_vs_best_speedup, 1.0);
  EXPECT_EQ(faster.row.confirmed.rounds, 4);
  EXPECT_NEAR(faster.row.confirmed.ratio, std::pow(1.20 * 1.25 * 1.18 * 1.22, 0.25), 1e-9);
  EXPECT_EQ(faster.row.confirmed.verdict, PairedVerdict::faster);
  EXPECT_EQ(paired_verdict_cell(faster.row).rfind("compile: 1.21x (CI ", 0), 0u) << paired_verdict_cell(faster.row);
  EXPECT_NE(progress.str().find("[confirm fp32] eager batch 32 vs jit batch 32: 1.21x"), std::string::npos)
      << progress.str();
  // Break-even from the decisive comparison (each at its best, at the paired speed-up), with the interval's range.
  const Amortization& a = faster.row.decisive();
  EXPECT_TRUE(a.worth_compiling);
  EXPECT_EQ(a.batch_size, 32);
  EXPECT_NEAR(a.speedup, faster.row.confirmed.ratio, 1e-9);
  EXPECT_GT(a.break_even_steps, 0);
  EXPECT_LE(faster.row.break_even_steps_low, a.break_even_steps);
  EXPECT_GE(faster.row.break_even_steps_high, a.break_even_steps);
  EXPECT_NE(break_even_cell(faster.row).find("steps of batch 32"), std::string::npos) << break_even_cell(faster.row);
  EXPECT_NE(break_even_cell(faster.row).find("; 95% CI "), std::string::npos) << break_even_cell(faster.row);
  // The batch curve is the stages' trials only: the repeats do not add points.
  for (const auto& b : faster.row.backends) EXPECT_EQ(b.batch_curve.size(), 7u) << b.backend;
}

// A round's trial times min_measure_steps and stops (confirm_measure_time): the verdict's interval is the rounds'
// spread; the search's own trials keep measure_time.
TEST_F(EngineFixture, TheConfirmationsRoundsTimeTheirOwnShorterMeasurement) {
  settings.measure_seconds = 30;
  settings.confirm_measure_seconds = 5;
  const ConfirmedSearch s = confirmed_search(*this, {1.20, 1.25});
  EXPECT_EQ(s.search_measure_seconds, (std::set<double>{30}));
  EXPECT_EQ(s.round_measure_seconds, (std::set<double>{5}));
  EXPECT_EQ(s.row.confirmed.rounds, 2);
}

// In a confirmed row the samples/s cells and best vs best are the rounds' (one sitting, alternating), with the
// search's one trial named beside them: here the stages' trials read 1.00x and the rounds 1.21x, so the stages' figures
// would contradict the verdict in the same row.
TEST_F(EngineFixture, AConfirmedRowShowsItsRoundsSpeedsBesideTheSearchsTrial) {
  const ConfirmedSearch faster = confirmed_search(*this, {1.20, 1.25, 1.18, 1.22});
  const BackendResult& eager = *faster.row.native_result();
  const BackendResult& jit = *faster.row.compiled_result();
  ASSERT_TRUE(eager.rounds_speed() && jit.rounds_speed());
  EXPECT_EQ(jit.rounds_speed()->rounds, 4);
  EXPECT_NEAR(jit.rounds_speed()->samples_per_second / eager.rounds_speed()->samples_per_second,
              faster.row.confirmed.ratio, 1e-9);
  const auto cells = table_cells(faster.row);
  const auto has_cell_starting = [&](const std::string& start) {
    return std::any_of(cells.begin(), cells.end(), [&](const std::string& c) { return c.rfind(start, 0) == 0; });
  };
  EXPECT_TRUE(has_cell_starting(strf("%.2f (4 rounds, the search's trial %.2f", jit.rounds_speed()->samples_per_second,
                                     jit.best.samples_per_second))) << join(cells, " | ");
  EXPECT_TRUE(has_cell_starting(strf("%.2f (4 rounds, the search's trial %.2f",
                                     eager.rounds_speed()->samples_per_second, eager.best.samples_per_second)))
      << join(cells, " | ");
  EXPECT_TRUE(has_cell_starting("1.21x (32 vs 32, paired)")) << join(cells, " | ");
  EXPECT_FALSE(has_cell_starting("1.00x")) << join(cells, " | ");  // the stages' single trials
}

// Unconfirmed, the cells are the search's single trials, and say so where they compare.
TEST_F(EngineFixture, AnUnconfirmedRowShowsTheSearchsTrialsAndSaysTheyAreSingle) {
  const ConfirmedSearch none = confirmed_search(*this, {0, 0});
  const auto cells = table_cells(none.row);
  const BackendResult& jit = *none.row.compiled_result();
  EXPECT_NE(std::find(cells.begin(), cells.end(), strf("%.2f", jit.best.samples_per_second)), cells.end())
      << join(cells, " | ");
  EXPECT_NE(std::find(cells.begin(), cells.end(), "1.00x at 32 (single trials)"), cells.end()) << join(cells, " | ");
  EXPECT_NE(std::find(cells.begin(), cells.end(), "1.00x (32 vs 32)"), cells.end()) << join(cells, " | ");
}

TEST_F(EngineFixture, AConfirmationWhoseIntervalHoldsOneSaysNoDifference) {
  const ConfirmedSearch same = confirmed_search(*this, {1.05, 0.97, 1.02, 0.99});
  EXPECT_EQ(same.row.confirmed.verdict, PairedVerdict::no_difference);
  EXPECT_EQ(paired_verdict_cell(same.row).rfind("no difference within the noise: 1.01x", 0), 0u)
      << paired_verdict_cell(same.row);
  // The stages' single trials (equal here) would give a break-even; the paired verdict says there is none.
  EXPECT_FALSE(same.row.decisive().worth_compiling);
  EXPECT_EQ(break_even_cell(same.row), "not worth compiling (paired)");
}

// Rounds whose trial failed give no ratio: with one ratio left the progress gives it without an interval, with none
// it says no round ran, never "0.00x (CI 0.00-0.00)"; the row stays unconfirmed either way.
TEST_F(EngineFixture, AConfirmationWithUnderTwoRoundsSaysItIsUnconfirmed) {
  const ConfirmedSearch none = confirmed_search(*this, {0, 0});
  EXPECT_EQ(none.row.confirmed.verdict, PairedVerdict::unconfirmed);
  EXPECT_NE(progress.str().find("jit batch 32: no round ran (the budget, or a failed trial): unconfirmed"),
            std::string::npos) << progress.str();
  EXPECT_EQ(progress.str().find("0.00x"), std::string::npos) << progress.str();
  progress.str("");
  dir = temp_dir("engine-one-round");  // a fresh store: the first search's failed repeats would be reused
  request.runs_dir = (dir / "runs").string();
  const ConfirmedSearch one = confirmed_search(*this, {1.1, 0});
  EXPECT_EQ(one.row.confirmed.verdict, PairedVerdict::unconfirmed);
  EXPECT_NE(progress.str().find(": 1.10x in its one round, no interval: unconfirmed"), std::string::npos)
      << progress.str();
}

// Where the two bests differ in batch (eager peaks at 8, jit at 32), the confirmation also runs native at jit's batch
// against jit in rounds of their own: compiling alone, batch size apart, is the row's paired same-batch speed-up.
TEST_F(EngineFixture, BestsAtDifferentBatchesAreAlsoConfirmedAtOneBatch) {
  Database db((dir / "t.db").string());
  settings.confirm_rounds = 3;
  StageList stages = ramp_then_confirm(settings);
  SearchEngine engine(db, [](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    const bool jit = s.step.backend == "jit";
    const double b = s.batch_size, peak = jit ? 32 : 8, per_sample = jit ? 150 : 100;
    r.samples_per_second = b <= peak ? per_sample * b : per_sample * peak * std::sqrt(peak / b);
    r.step_time_median = b / r.samples_per_second;
    return r;
  }, settings, progress, std::move(stages));
  request.backends = {"eager", "jit"};
  engine.run(request, 3600);
  EXPECT_NE(progress.str().find("[confirm fp32] eager batch 8 vs jit batch 32: 6.00x"), std::string::npos)
      << progress.str();
  EXPECT_NE(progress.str().find("[confirm fp32] eager batch 32 vs jit batch 32: 12.00x"), std::string::npos)
      << progress.str();
  const TestedModelsTable table = gather_tested_models(db, "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  const TableRow& row = table.rows[0];
  EXPECT_EQ(row.confirmed.rounds, 3);
  EXPECT_NEAR(row.confirmed.ratio, 6.0, 1e-9);
  EXPECT_EQ(row.confirmed_equal_batch.rounds, 3);
  EXPECT_NEAR(row.confirmed_equal_batch.ratio, 12.0, 1e-9);
  EXPECT_EQ(row.confirmed_equal_batch.verdict, PairedVerdict::faster);
  const auto cells = table_cells(row);
  EXPECT_NE(std::find(cells.begin(), cells.end(), "12.00x at 32 (paired: CI 12.00-12.00, 3 rounds)"), cells.end());
}

// Eager's ramp, cut by its trial cap at 2, never ran jit's 32: best vs best would credit compiling with batch size.
// Without a confirmation the row says so; with one, eager runs at 32 first, the row's pick over stored trials takes
// it (faster), and the rounds compare the two at 32.
TEST_F(EngineFixture, ARampCutBelowTheOtherSidesBatchRunsThatBatchBeforeTheRounds) {
  Database db((dir / "t.db").string());
  const auto run = [&](std::vector<std::string> backends, int max_trials, int rounds) {
    settings.max_trials = max_trials;
    settings.confirm_rounds = rounds;
    StageList stages = ramp_then_confirm(settings);
    SearchEngine engine(db, [](const TrialSpec& s, const std::string&) {
      TrialResult r = simulated_trial(s);
      const double b = s.batch_size, peak = 32, per_sample = s.step.backend == "jit" ? 150 : 100;
      r.samples_per_second = b <= peak ? per_sample * b : per_sample * peak * std::sqrt(peak / b);
      r.step_time_median = b / r.samples_per_second;
      return r;
    }, settings, progress, std::move(stages));
    request.backends = std::move(backends);
    return engine.run(request, 3600);
  };
  run({"jit"}, 32, 0);
  run({"eager"}, 2, 0);  // eager's ramp: 1 and 2, then the cap
  const TestedModelsTable cut = gather_tested_models(db, "t.db");
  ASSERT_EQ(cut.rows.size(), 1u);
  EXPECT_EQ(cut.rows[0].batch_cut, "eager's batch ramp stopped at 2 (max trials), below jit's 32");
  EXPECT_EQ(cut.rows[0].backends[*cut.rows[0].native].best.batch_size, 2);
  const auto cut_cells = table_cells(cut.rows[0]);
  EXPECT_NE(std::find(cut_cells.begin(), cut_cells.end(),
                      "24.00x (2 vs 32; eager's batch ramp stopped at 2 (max trials), below jit's 32)"),
            cut_cells.end());
  const auto notes = table_notes(cut);
  EXPECT_NE(std::find(notes.begin(), notes.end(), std::string(kBatchCutNote)), notes.end());

  const SearchSummary confirmed = run({"eager"}, 2, 2);
  EXPECT_NE(progress.str().find("[confirm fp32] eager's batch ramp stopped at 2 (max trials), below jit's 32: eager at "
                                "32 runs first"),
            std::string::npos)
      << progress.str();
  EXPECT_NE(progress.str().find("[confirm fp32] eager batch 32 vs jit batch 32: 1.50x"), std::string::npos)
      << progress.str();
  EXPECT_EQ(confirmed.backends[0].trials_run, 3);  // eager at 32, then its two rounds
  const TestedModelsTable table = gather_tested_models(db, "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  const TableRow& row = table.rows[0];
  EXPECT_EQ(row.batch_cut, "");
  EXPECT_EQ(row.backends[*row.native].best.batch_size, 32);  // the stored trial at 32 overrules the cut ramp's 2
  EXPECT_EQ(row.confirmed.rounds, 2);
  EXPECT_NEAR(row.confirmed.ratio, 1.5, 1e-9);
}

namespace {

// Eager and jit through the ramp and a four-round confirmation on a machine whose samples/s `speed` gives, each
// the same per sample at every size up to `peak` and less beyond; the ramp's trials (repeat 0) of `slow` from
// `slow_from` on (below `slow_below`) read `slow_share` of it, as a burst slows them. The store's one row.
// `backends` (eager and a compiler) through the ramp and a four-round confirmation, each trial `simulate`d; the
// store's rows.
TestedModelsTable ramp_and_confirm(EngineFixture& f, Database& db, std::vector<std::string> backends,
                                   const TrialExecutor& simulate) {
  f.settings.confirm_rounds = 4;
  SearchEngine engine(db, simulate, f.settings, f.progress, ramp_then_confirm(f.settings));
  f.request.backends = std::move(backends);
  engine.run(f.request, 3600);
  return gather_tested_models(db, "t.db");
}

TestedModelsTable confirm_on(EngineFixture& f, Database& db, const std::string& slow, int slow_from, double slow_share,
                             double peak, int slow_below = 1 << 30) {
  return ramp_and_confirm(f, db, {"eager", "jit"}, [=](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    const double b = s.batch_size, per_sample = s.step.backend == "jit" ? 110 : 100;
    r.samples_per_second = b <= peak ? per_sample * b : per_sample * peak * std::sqrt(peak / b);
    if (s.step.backend == slow && s.batch_size >= slow_from && s.batch_size < slow_below && s.repeat == 0)
      r.samples_per_second *= slow_share;
    r.step_time_median = b / r.samples_per_second;
    return r;
  });
}

}  // namespace

// Eager's ramp trials from 16 on ran slow (0.4x, as a burst does), so its ramp picked 8; the confirmation's rounds at
// jit's 16 all beat its rounds at 8, so the row moves eager to 16 and the verdict compares the two there (1.1x),
// not eager at 8 against jit at 16 (2.2x, mostly batch size).
TEST_F(EngineFixture, NativesRoundsFasterAtTheCompiledBatchMoveItsBest) {
  Database db((dir / "t.db").string());
  const TestedModelsTable table = confirm_on(*this, db, "eager", 16, 0.4, 16);
  EXPECT_NE(progress.str().find("[confirm fp32] eager batch 8 vs jit batch 16: 2.20x"), std::string::npos)
      << progress.str();
  ASSERT_EQ(table.rows.size(), 1u);
  const TableRow& row = table.rows[0];
  const BackendResult& eager = row.backends[*row.native];
  EXPECT_EQ(eager.best.batch_size, 16);
  EXPECT_EQ(eager.moved_by_rounds_from, 8);
  EXPECT_EQ(eager.rate_batch_size, 8);
  EXPECT_NEAR(row.confirmed.ratio, 1.1, 1e-9);
  EXPECT_EQ(row.confirmed.rounds, 4);
  const auto cells = table_cells(row);
  EXPECT_NE(std::find(cells.begin(), cells.end(), "16 (the rounds: 8 ran slower)"), cells.end()) << join(cells, " | ");
  const auto notes = table_notes(table);
  EXPECT_NE(std::find(notes.begin(), notes.end(), std::string(kMovedByRoundsNote)), notes.end());
  EXPECT_EQ(std::find(notes.begin(), notes.end(), std::string(kStoredPickNote)), notes.end());
}

// The mirror image: jit's ramp trials from 8 on ran slow (0.1x), so its ramp picked 4 while eager's reached 32. The
// two run at 32 in rounds; every jit round there beats every one at 4, so the row moves jit to 32 and its verdict
// is 1.10x at one batch, not 0.14x.
TEST_F(EngineFixture, CompiledRoundsFasterAtNativesLargerBatchMoveItsBest) {
  Database db((dir / "t.db").string());
  const TestedModelsTable table = confirm_on(*this, db, "jit", 8, 0.1, 256);
  EXPECT_NE(progress.str().find("[confirm fp32] eager batch 32 vs jit batch 4: 0.14x"), std::string::npos)
      << progress.str();
  EXPECT_NE(progress.str().find("[confirm fp32] eager batch 32 vs jit batch 32: 1.10x"), std::string::npos)
      << progress.str();
  ASSERT_EQ(table.rows.size(), 1u);
  const TableRow& row = table.rows[0];
  const BackendResult& jit = row.backends[*row.compiled];
  EXPECT_EQ(jit.best.batch_size, 32);
  EXPECT_EQ(jit.moved_by_rounds_from, 4);
  EXPECT_NEAR(row.confirmed.ratio, 1.1, 1e-9);
  EXPECT_EQ(row.confirmed_equal_batch_size, 32);
  const auto cells = table_cells(row);
  EXPECT_NE(std::find(cells.begin(), cells.end(), "32 (jit; the rounds: 4 ran slower)"), cells.end())
      << join(cells, " | ");
}

// A rerun of such a search takes the first one's path. The burst slowed only jit's ramp trials at 8 and 16, so the
// trial the same-batch rounds ran first at 32 (jit's ramp never did) was fast; it is not one of the search's own, so
// the rerun's batch stage does not pick it over the ramp's 4 (CI, 2026-12-06: a rerun of bert-tiny eager,jit picked
// jit's batch 64 from that one trial and ran a rate search there, which the first search never did). Only the
// rounds move jit's best, in the table, as before.
TEST_F(EngineFixture, ARerunAfterTheSameBatchRoundsTakesTheFirstSearchsPath) {
  Database db((dir / "t.db").string());
  confirm_on(*this, db, "jit", 8, 0.1, 256, 32);
  progress.str("");
  const TestedModelsTable again = confirm_on(*this, db, "jit", 8, 0.1, 256, 32);
  EXPECT_NE(progress.str().find("[confirm fp32] eager batch 32 vs jit batch 4: 0.14x"), std::string::npos)
      << progress.str();
  EXPECT_EQ(progress.str().find("the pick over every stored size"), std::string::npos) << progress.str();
  EXPECT_EQ(progress.str().find(" ... "), std::string::npos) << "every trial reused: " << progress.str();
  ASSERT_EQ(again.rows.size(), 1u);
  const BackendResult& jit = again.rows[0].backends[*again.rows[0].compiled];
  EXPECT_EQ(jit.best.batch_size, 32);
  EXPECT_EQ(jit.moved_by_rounds_from, 4);
}

namespace {

// Eager against inductor (1.5x) through the ramp and a four-round confirmation; inductor's first trial at each batch
// compiles cold (60 s overhead) and the later ones there warm (6 s), as a study's shared compile cache makes them,
// unless `always_warm` (a cache shared across studies that already held every graph). Eager's overhead is 0.5 s.
TestedModelsTable cold_then_warm(EngineFixture& f, Database& db, bool always_warm) {
  auto compiled_at = std::make_shared<std::set<int>>();
  return ramp_and_confirm(f, db, {"eager", "inductor"}, [=](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    r.samples_per_second = (s.step.backend == "inductor" ? 15.0 : 10.0) * s.batch_size / (1.0 + 0.01 * s.batch_size);
    r.step_time_median = s.batch_size / r.samples_per_second;
    r.compile_overhead_seconds = 0.5;
    if (s.step.backend == "inductor") {
      const bool cold = !always_warm && compiled_at->insert(s.batch_size).second;
      r.compile_cache = cold ? "cold" : "warm";
      r.compile_overhead_seconds = cold ? 60 : 6;
    }
    return r;
  });
}

}  // namespace

// The row's overhead is the cold compile's; the warm one (the confirmation's rounds, each a new process on the
// study's cache) gives a second break-even, for a job on a machine where the model compiled before.
TEST_F(EngineFixture, TheRowGivesTheColdOverheadAndAWarmBreakEvenApart) {
  Database db((dir / "t.db").string());
  const TestedModelsTable table = cold_then_warm(*this, db, false);
  ASSERT_EQ(table.rows.size(), 1u);
  const TableRow& row = table.rows[0];
  ASSERT_TRUE(row.is_confirmed());
  EXPECT_NEAR(row.compile_overhead_seconds, 60 * 3 - 0.5, 1e-9);  // a job's 3 shapes, less eager's own warm-up
  ASSERT_TRUE(row.shows_warm());
  EXPECT_NEAR(row.warm_compile_overhead_seconds, 6 * 3 - 0.5, 1e-9);
  const Amortization& cold = row.confirmed_amortization, &warm = row.warm_amortization;
  ASSERT_TRUE(cold.worth_compiling && warm.worth_compiling);
  const int batch = cold.batch_size;
  const double native = 10.0 * batch / (1.0 + 0.01 * batch), saving = batch / native - batch / (1.5 * native);
  EXPECT_NEAR(cold.break_even_steps, std::ceil(179.5 / saving), 1);
  EXPECT_NEAR(warm.break_even_steps, std::ceil(17.5 / saving), 1);
  const auto cells = table_cells(row);
  EXPECT_NE(std::find(cells.begin(), cells.end(), "179.5 s cold, 17.5 s warm"), cells.end()) << join(cells, " | ");
  EXPECT_NE(break_even_cell(row).find(strf("; warm cache: %.0f steps", warm.break_even_steps)), std::string::npos)
      << break_even_cell(row);
  const auto notes = table_notes(table);
  EXPECT_NE(std::find(notes.begin(), notes.end(), std::string(kWarmCacheNote)), notes.end());
}

// Where every trial found its graphs in a cache shared across studies, no cold overhead was measured: the row does
// not pass a warm one off as the cold compile's.
TEST_F(EngineFixture, AnOverheadWithNoColdCompileBehindItSaysSo) {
  Database db((dir / "t.db").string());
  const TestedModelsTable table = cold_then_warm(*this, db, true);
  ASSERT_EQ(table.rows.size(), 1u);
  const TableRow& row = table.rows[0];
  EXPECT_FALSE(row.cold_overhead_measured);
  EXPECT_EQ(compile_overhead_cell(row), "17.5 s (warm: no cold compile measured)");
}

// With compiled_ramp_from_native, a compiled backend's ramp starts at the largest power of two at most half eager's
// pick (eager reaches 32, out of memory at 64): jit compiles 16, 32 and 64, none of 1 to 8, and picks what the full
// ramp picks. Without it, jit starts at 1.
TEST_F(EngineFixture, ACompiledRampStartsAtHalfTheNativePick) {
  const auto jit_sizes = [&](bool from_native) {
    Database db((dir / (from_native ? "from.db" : "full.db")).string());
    settings.compiled_ramp_from_native = from_native;
    SearchEngine engine(db, [](const TrialSpec& s, const std::string&) { return simulated_trial(s); }, settings, progress,
                        ramp_then_confirm(settings));
    request.backends = {"eager", "jit"};
    const SearchSummary summary = engine.run(request, 3600);
    std::set<int> sizes;
    for (const auto& o : summary.backends)
      if (o.backend == "jit")
        for (const auto& t : db.trials(o.study_id)) sizes.insert(t.spec.batch_size);
    return std::make_pair(sizes, summary.backends.back());
  };
  const auto [full, full_jit] = jit_sizes(false);
  EXPECT_EQ(full, (std::set<int>{1, 2, 4, 8, 16, 32, 64}));
  const auto [from_native, jit] = jit_sizes(true);
  EXPECT_EQ(from_native, (std::set<int>{16, 32, 64}));
  ASSERT_TRUE(jit.best && full_jit.best);
  EXPECT_EQ(jit.best->batch_size, full_jit.best->batch_size);
  EXPECT_NE(progress.str().find("[jit fp32] batch ramp started at 16, at most half eager's pick 32"), std::string::npos)
      << progress.str();
  EXPECT_NE(jit.ramp_stop.find("started at 16"), std::string::npos) << jit.ramp_stop;
}

// Eager's pick is where a compiled ramp expects the peak: from twice it on, one flat doubling ends the ramp. Both
// backends peak at 8 here and are flat past it; eager's own ramp waits out two flat doublings (16, 32), jit's ends at
// 16, and both pick 8.
TEST_F(EngineFixture, ACompiledRampEndsAtTheFirstFlatDoublingFromTwiceTheNativePick) {
  settings.compiled_ramp_from_native = true;
  Database db((dir / "t.db").string());
  const auto peaked_at_8 = [](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    r.samples_per_second = 100.0 * std::min(s.batch_size, 8) / 8 - 0.5 * std::max(0, s.batch_size - 8) / 8;
    r.step_time_median = s.batch_size / r.samples_per_second;
    return r;
  };
  SearchEngine engine(db, peaked_at_8, settings, progress, ramp_then_confirm(settings));
  request.backends = {"eager", "jit"};
  const SearchSummary summary = engine.run(request, 3600);
  std::map<std::string, std::set<int>> sizes;
  for (const auto& o : summary.backends) {
    for (const auto& t : db.trials(o.study_id)) sizes[o.backend].insert(t.spec.batch_size);
    ASSERT_TRUE(o.best) << o.backend;
    EXPECT_EQ(o.best->batch_size, 8) << o.backend;
  }
  EXPECT_EQ(sizes["eager"], (std::set<int>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(sizes["jit"], (std::set<int>{4, 8, 16}));
  EXPECT_NE(summary.backends.back().ramp_stop.find("at least twice the expected peak 8"), std::string::npos)
      << summary.backends.back().ramp_stop;
}

// The confirmation compares the two configs the row shows, whichever search found them: here jit's best is an
// earlier search's, and this one searched eager alone.
TEST_F(EngineFixture, TheConfirmationComparesTheRowsConfigsFromEveryStudy) {
  Database db((dir / "t.db").string());
  const auto run = [&](std::vector<std::string> backends, int rounds) {
    settings.confirm_rounds = rounds;
    StageList stages = ramp_then_confirm(settings);
    SearchEngine engine(db, [](const TrialSpec& s, const std::string&) { return simulated_trial(s); }, settings,
                        progress, std::move(stages));
    request.backends = std::move(backends);
    return engine.run(request, 3600);
  };
  run({"eager", "jit"}, 0);
  const SearchSummary eager_only = run({"eager"}, 2);
  EXPECT_NE(progress.str().find("[confirm fp32] eager batch 32 vs jit batch 32: 1.50x"), std::string::npos)
      << progress.str();
  EXPECT_EQ(eager_only.backends[0].trials_run, 2);  // its two rounds; the batch trials were reused
  const TestedModelsTable table = gather_tested_models(db, "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].confirmed.rounds, 2);
}

// The pairs run once: a list with a search-scope stage between two pair stages is a bug in tune, and stops it.
TEST(StageListDeathTest, ASearchStageBetweenPairStagesIsRefused) {
  SearchSettings settings;
  std::vector<std::string> seen;
  StageList stages;
  stages.push_back(make_batch_stage(settings));
  stages.push_back(std::make_unique<CountThePairs>(seen));
  stages.push_back(std::make_unique<KeepTheFastestBatch>());
  const auto dir = temp_dir("engine-death");
  EXPECT_DEATH(
      {
        Database db((dir / "t.db").string());
        std::ostringstream progress;
        SearchEngine engine(db, [](const TrialSpec& s, const std::string&) { return simulated_trial(s); }, settings,
                            progress, std::move(stages));
      },
      "pair stages in one run");
}

// Why each stage ended is stored with the best config, in the engine's words, as it searched: the table reads
// it, never re-derives it.
TEST_F(EngineFixture, StoresWhyEachStageEnded) {
  Database db((dir / "t.db").string());
  int calls = 0;
  request.backends = {"eager"};
  const auto summary = search(db, &calls);
  const auto rows = db.best_rows();
  ASSERT_EQ(rows.size(), 1u);
  const StopReasons& stop = rows[0].best.stop;
  EXPECT_EQ(stop.batch_limit, BatchLimit::memory);
  EXPECT_EQ(stop.limit_batch_size, 64);
  EXPECT_EQ(stop.limit_status, TrialStatus::oom);
  EXPECT_EQ(stop.batch_stop, summary.backends[0].ramp_stop);
  EXPECT_EQ(stop.lr_cause, StopCause::strategy);
  EXPECT_EQ(stop.lr_stop, "all learning rates tried");

  settings.max_batch_size = 8;  // the same study searched again: now the range ends the ramp first
  search(db, &calls);
  EXPECT_EQ(db.best_rows()[0].best.stop.batch_limit, BatchLimit::range);

  settings.max_batch_size = 256;
  settings.max_trials = 3;  // the ramp's trial cap ends it at batch 4
  search(db, &calls);
  EXPECT_EQ(db.best_rows()[0].best.stop.batch_limit, BatchLimit::trials);
  EXPECT_EQ(db.best_rows()[0].best.stop.lr_cause, StopCause::trial_cap);
}

// The engine and the replay run strategies through the one driver: on the same landscape they ask the same
// candidates in the same order and end for the same reason.
TEST_F(EngineFixture, EngineAndReplayDriveStrategiesAlike) {
  const ReplayLandscape landscape = tune::testing::bert_tiny_landscape();
  Database db((dir / "t.db").string());
  request.backends = {"eager"};
  settings.max_batch_size = 256;
  settings.ramp_learning_rate = 1e-4;
  settings.learning_rates = {1e-4, 1e-3, 1e-2};
  settings.lr_train_steps = 27;
  std::vector<Candidate> asked;
  SearchEngine engine(db, [&](const TrialSpec& s, const std::string&) {
      asked.push_back({s.batch_size, s.learning_rate, s.purpose == TrialPurpose::learning_rate ? s.train_steps : 0});
      TrialResult r = landscape.replay({s.batch_size, s.learning_rate, s.train_steps});
      r.wall_seconds = 0.001;
      return r;
    }, settings, progress);
  const auto summary = engine.run(request, 3600);
  ASSERT_TRUE(summary.backends[0].best) << summary.backends[0].failure;

  TunerSpace batches;
  batches.objective = StageObjective::throughput;
  batches.max_batch_size = 256;
  // The engine's limit (the instance's memory share): once 128 runs out of memory, the ramp's margin reads it.
  batches.memory_limit_bytes = static_cast<int64_t>(request.instance.memory_bytes * settings.memory_fraction);
  const auto ramp = make_tuner("batch_ramp", batches, 0);
  const ReplayRun ramp_run = run_tuner(*ramp, landscape, 100);
  TunerSpace rates;
  rates.min_batch_size = rates.max_batch_size = ramp_run.best->first.batch_size;
  rates.learning_rates = settings.learning_rates;
  rates.min_learning_rate = 1e-4;
  rates.max_learning_rate = 1e-2;
  rates.train_steps = 27;
  const auto sweep = make_tuner("lr_sweep", rates, 0);
  const ReplayRun sweep_run = run_tuner(*sweep, landscape, 100);
  std::vector<Candidate> replayed;
  for (const auto& t : ramp_run.trials) replayed.push_back(t.candidate);
  for (const auto& t : sweep_run.trials) replayed.push_back({t.candidate.batch_size, t.candidate.learning_rate, 27});
  ASSERT_EQ(asked.size(), replayed.size());
  for (size_t i = 0; i < asked.size(); ++i) EXPECT_TRUE(asked[i] == replayed[i]) << "trial " << i;
  EXPECT_EQ(summary.backends[0].ramp_stop, ramp_run.stop_reason);
  EXPECT_EQ(summary.backends[0].lr_stop, sweep_run.stop_reason);
  EXPECT_EQ(summary.backends[0].best->batch_size, ramp_run.best->first.batch_size);
  EXPECT_DOUBLE_EQ(summary.backends[0].best->learning_rate, sweep_run.best->first.learning_rate);
}

TEST_F(EngineFixture, RangeCapIsMarked) {
  Database db((dir / "t.db").string());
  int calls = 0;
  settings.max_batch_size = 8;
  request.backends = {"eager"};
  const auto summary = search(db, &calls);
  ASSERT_TRUE(summary.backends[0].best.has_value());
  EXPECT_EQ(summary.backends[0].best->batch_size, 8);
  EXPECT_TRUE(summary.backends[0].best->batch_capped_by_range());
}

// A fixed batch (min = max, as configs/side-by-side.yaml sets it): one throughput trial at that size, then the rates.
TEST_F(EngineFixture, MinBatchSizeStartsTheRamp) {
  Database db((dir / "t.db").string());
  int calls = 0;
  settings.min_batch_size = settings.max_batch_size = 8;
  request.backends = {"eager"};
  const auto summary = search(db, &calls);
  ASSERT_TRUE(summary.backends[0].best.has_value());
  EXPECT_EQ(summary.backends[0].best->batch_size, 8);
  EXPECT_EQ(calls, 1 + 4);  // batch 8 only, then four learning rates
}

// A step's warning (a graph break) is a line of its own, and the trial's result starts the next ("  -> ok, ..."),
// not the warning's tail.
TEST_F(EngineFixture, AStepWarningIsALineOfItsOwnBeforeTheResult) {
  Database db((dir / "t.db").string());
  request.backends = {"eager"};
  settings.min_batch_size = settings.max_batch_size = 8;
  SearchEngine engine(db, [](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    r.warnings = {"graph break: x"};
    return r;
  }, settings, progress);
  engine.run(request, 3600);
  EXPECT_NE(progress.str().find("\ntune: warning in the step: graph break: x\n  -> ok, "), std::string::npos)
      << progress.str();
}

TEST_F(EngineFixture, CompileErrorIsRecordedAndSearchGoesOn) {
  Database db((dir / "t.db").string());
  int calls = 0;
  request.backends = {"broken", "eager"};
  const auto summary = search(db, &calls);
  EXPECT_FALSE(summary.backends[0].best.has_value());
  EXPECT_NE(summary.backends[0].failure.find("compile_error"), std::string::npos) << summary.backends[0].failure;
  EXPECT_NE(summary.backends[0].failure.find("falls back to eager"), std::string::npos) << summary.backends[0].failure;
  EXPECT_TRUE(summary.backends[1].best.has_value());
  const int64_t broken =
      db.ensure_study(make_study_key("sim", request.model.config_hash(), request.instance, "test", "broken", "fp32", 32));
  ASSERT_EQ(db.trials(broken).size(), 1u);
  EXPECT_EQ(db.trials(broken)[0].result.status, TrialStatus::compile_error);
}

TEST_F(EngineFixture, RerunReusesCommittedTrials) {
  Database db((dir / "t.db").string());
  int first = 0, second = 0;
  request.backends = {"eager", "jit"};
  const auto a = search(db, &first);
  const auto b = search(db, &second);
  EXPECT_GT(first, 0);
  EXPECT_EQ(second, 0);
  EXPECT_EQ(b.backends[1].trials_reused, a.backends[1].trials_run);
  EXPECT_EQ(b.backends[1].best->batch_size, a.backends[1].best->batch_size);
  EXPECT_EQ(db.best_rows().size(), 2u);
}

TEST_F(EngineFixture, BudgetStopsTheRampAfterItsFirstTrial) {
  Database db((dir / "t.db").string());
  request.backends = {"eager"};
  SearchEngine engine(db, [](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    r.wall_seconds = 100;  // each trial "takes" 100 s against a 60 s budget
    return r;
  }, settings, progress);
  const auto summary = engine.run(request, 60);
  ASSERT_TRUE(summary.backends[0].best.has_value());
  EXPECT_EQ(summary.backends[0].best->batch_size, 1);
  EXPECT_EQ(summary.backends[0].trials_run, 2);  // one ramp trial, one learning-rate trial
  EXPECT_NE(progress.str().find("budget"), std::string::npos);
  EXPECT_EQ(summary.backends[0].best->stop.batch_limit, BatchLimit::budget);
  EXPECT_EQ(summary.backends[0].best->stop.lr_cause, StopCause::budget);
}

// Steps of 1 s: twelve-step trials of the list and two past its edges (6 x 13 s) do not fit 40 s; five-step ones
// (6 x 6 s) do, and the search says which horizon it could afford.
TEST_F(EngineFixture, AHorizonTheBudgetCannotAffordIsShortenedAndSaid) {
  Database db((dir / "t.db").string());
  request.backends = {"eager"};
  settings.max_batch_size = 1;
  settings.warmup_steps = 3;
  settings.lr_train_steps = 12;
  std::vector<int> lr_steps;
  SearchEngine engine(db, [&lr_steps](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    const int steps = s.purpose == TrialPurpose::learning_rate ? s.train_steps : 13;
    if (s.purpose == TrialPurpose::learning_rate) lr_steps.push_back(steps);
    r.first_steps_seconds = 3;
    r.step_times.assign(steps - 3, 1.0);
    r.step_time_median = 1.0;
    r.wall_seconds = 1 + steps;  // 1 s of process, model and data, then 1 s per step
    return r;
  }, settings, progress);
  const auto summary = engine.run(request, 40);
  ASSERT_TRUE(summary.backends[0].best.has_value());
  ASSERT_FALSE(lr_steps.empty());
  for (int steps : lr_steps) EXPECT_EQ(steps, 5);
  const std::string& stop = summary.backends[0].best->stop.lr_stop;
  EXPECT_EQ(stop.rfind("horizon 5 of lr_train_steps 12 steps (the budget affords", 0), 0u) << stop;
  EXPECT_NE(progress.str().find("learning-rate horizon 5 of lr_train_steps 12"), std::string::npos) << progress.str();
}

// The horizon follows the job: a tenth of it (reports/lr-horizon.md: the ranking after H steps predicts the one
// after 10 H), never under lr_train_steps unless the job is shorter; --job-hours converts at the step time.
TEST(JobHorizon, ATenthOfTheJobNeverUnderTheDefaultUnlessTheJobIsShorter) {
  EXPECT_EQ(wanted_horizon(0, 12), 12);
  EXPECT_EQ(wanted_horizon(5, 12), 5);
  EXPECT_EQ(wanted_horizon(50, 12), 12);
  EXPECT_EQ(wanted_horizon(1000, 12), 100);
  EXPECT_EQ(wanted_horizon(2e5, 12), 20000);
  EXPECT_DOUBLE_EQ(job_steps_at(JobLength{0, 2}, 0.5), 14400);
  EXPECT_DOUBLE_EQ(job_steps_at(JobLength{300, 0}, 0.5), 300);
  EXPECT_DOUBLE_EQ(job_steps_at(JobLength{}, 0.5), 0);
  EXPECT_EQ(describe_short_horizon(100, 100, 1000, 6), "");
  EXPECT_EQ(describe_short_horizon(20, 100, 1000, 6)
                .rfind("horizon 20 of the 100 steps a 1000-step job calls for (a tenth of it; the budget affords", 0),
            0u);
  EXPECT_EQ(describe_job_horizon(100, 1000), "horizon 100 steps for a 1000-step job; ");
  EXPECT_EQ(describe_job_horizon(12, 0), "");
}

// A 400-step job: rate trials of 40 steps, said in the stop reason and the outcome; with --job-hours the steps
// come from the chosen batch's step time (1 s here: 0.05 h = 180 steps, horizon 18); a budget that cannot afford
// the job's horizon shortens it and says what that means for the rate.
TEST_F(EngineFixture, TheJobSetsTheRateHorizonAndTheBudgetCanShortenIt) {
  request.backends = {"eager"};
  settings.max_batch_size = 1;
  std::vector<int> lr_steps;
  auto executor = [&lr_steps](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    const int steps = s.purpose == TrialPurpose::learning_rate ? s.train_steps : 13;
    if (s.purpose == TrialPurpose::learning_rate) lr_steps.push_back(steps);
    r.samples_per_second = 1.0;  // batch 1: 1 s per step
    r.first_steps_seconds = 3;
    r.step_times.assign(steps - 3, 1.0);
    r.step_time_median = 1.0;
    r.wall_seconds = 1 + steps;
    return r;
  };
  const auto horizon_of = [&](JobLength job, double budget, const std::string& db_name) {
    Database db((dir / db_name).string());
    request.job = job;
    lr_steps.clear();
    const SearchSummary summary = SearchEngine(db, executor, settings, progress).run(request, budget);
    EXPECT_TRUE(summary.backends[0].best.has_value());
    for (int steps : lr_steps) EXPECT_EQ(steps, summary.backends[0].lr_horizon_steps);
    return summary.backends[0];
  };
  const BackendOutcome steps = horizon_of(JobLength{400, 0}, 3600, "steps.db");
  EXPECT_EQ(steps.lr_horizon_steps, 40);
  EXPECT_DOUBLE_EQ(steps.job_steps, 400);
  EXPECT_EQ(steps.lr_stop.rfind("horizon 40 steps for a 400-step job; ", 0), 0u) << steps.lr_stop;
  const BackendOutcome hours = horizon_of(JobLength{0, 0.05}, 3600, "hours.db");
  EXPECT_EQ(hours.lr_horizon_steps, 18);
  const BackendOutcome cut = horizon_of(JobLength{400, 0}, 150, "cut.db");
  EXPECT_LT(cut.lr_horizon_steps, 40);
  EXPECT_GE(cut.lr_horizon_steps, settings.warmup_steps + 1);
  EXPECT_NE(cut.lr_stop.find("of the 40 steps a 400-step job calls for"), std::string::npos) << cut.lr_stop;
  EXPECT_NE(cut.lr_stop.find("take the rate as an upper end"), std::string::npos) << cut.lr_stop;
  // The stored best keeps both, so the table marks the cut at the rate.
  EXPECT_EQ(cut.best->stop.lr_horizon_steps, cut.lr_horizon_steps);
  EXPECT_EQ(cut.best->stop.lr_horizon_wanted, 40);
  EXPECT_EQ(steps.best->stop.lr_horizon_steps, steps.best->stop.lr_horizon_wanted);
}

// A larger size that failed otherwise (a timeout) limits the batch with its status; a ramp that ends on flat
// throughput, its largest size the fastest, is limited by throughput though no larger size ran.
TEST_F(EngineFixture, StoresAFailureOrFlatThroughputAsTheBatchLimit) {
  Database db((dir / "t.db").string());
  request.backends = {"eager"};
  SearchEngine timeouts(db, [](const TrialSpec& s, const std::string&) {
    if (s.purpose == TrialPurpose::throughput && s.batch_size >= 16)
      return failed_result(TrialStatus::timeout, "run", "timed out after 900 s");
    return simulated_trial(s);
  }, settings, progress);
  const auto failed = timeouts.run(request, 3600).backends[0].best;
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->stop.batch_limit, BatchLimit::failure);
  EXPECT_EQ(failed->stop.limit_batch_size, 16);
  EXPECT_EQ(failed->stop.limit_status, TrialStatus::timeout);

  request.model.name = "flat";  // another study
  SearchEngine flat(db, [](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    r.samples_per_second = 100 + 0.001 * s.batch_size;  // each doubling gains nothing: the ramp stops itself
    r.step_time_median = s.batch_size / r.samples_per_second;
    return r;
  }, settings, progress);
  const auto plateau = flat.run(request, 3600).backends[0];
  ASSERT_TRUE(plateau.best);
  EXPECT_NE(plateau.ramp_stop.find("stopped improving"), std::string::npos) << plateau.ramp_stop;
  EXPECT_EQ(plateau.best->batch_size, 4) << "the largest size tried, marginally the fastest";
  EXPECT_EQ(plateau.best->stop.batch_limit, BatchLimit::throughput);
}

// The batch stage's space of these tests: sizes 1..1024 at lr 1e-4, the ramp's options as given.
TunerSpace ramp_space(std::map<std::string, double> options) {
  TunerSpace space;
  space.objective = StageObjective::throughput;
  space.max_batch_size = 1024;
  space.options = std::move(options);
  return space;
}

TEST(BatchRamp, StopsWhenThroughputFlattensPastItsPatience) {
  BatchRamp ramp(ramp_space({{"patience", 1}}));
  auto told = [&](int bs, double sps) {
    TrialResult r;
    r.status = TrialStatus::ok;
    r.samples_per_second = sps;
    ramp.tell({bs, 1e-4}, r);
  };
  ASSERT_EQ(ramp.ask()->batch_size, 1);
  told(1, 10);
  ASSERT_EQ(ramp.ask()->batch_size, 2);
  told(2, 18);
  told(4, 18.5);  // +3%: flat, but one flat doubling is tolerated
  ASSERT_EQ(ramp.ask()->batch_size, 8);
  told(8, 18.6);  // flat again: done
  EXPECT_FALSE(ramp.ask().has_value());
  EXPECT_EQ(ramp.best()->first.batch_size, 8);
  EXPECT_NE(ramp.stop_reason().find("stopped improving at batch 8"), std::string::npos) << ramp.stop_reason();
  EXPECT_NE(ramp.stop_reason().find("2 flat"), std::string::npos) << ramp.stop_reason();
}

// Once a size ran out of memory, the ramp's choice leaves 10% of the memory free: batch 4 peaked at 95% of the
// limit, so batch 2 (60%) is chosen; with margin 0, batch 4.
TEST(BatchRamp, KeepsAMemoryMarginOnceASizeRanOutOfMemory) {
  for (double margin : {0.10, 0.0}) {
    TunerSpace space = ramp_space({{"margin", margin}});
    space.memory_limit_bytes = 1000;
    BatchRamp ramp(space);
    const std::vector<std::pair<double, int64_t>> measured{{10, 300}, {18, 600}, {30, 950}};
    for (const auto& [sps, peak] : measured) {
      TrialResult r;
      r.status = TrialStatus::ok;
      r.samples_per_second = sps;
      r.peak_memory_bytes = peak;
      ramp.tell(*ramp.ask(), r);
    }
    EXPECT_EQ(ramp.best()->first.batch_size, 4) << "no size failed yet: no margin";
    ramp.tell(*ramp.ask(), failed_result(TrialStatus::oom, "run", "out of memory"));
    EXPECT_FALSE(ramp.ask().has_value());
    EXPECT_EQ(ramp.best()->first.batch_size, margin > 0 ? 2 : 4) << "margin " << margin;
  }
}

// A plateau (libtorch's parallelism starting at some size) does not end the ramp; patience 0 would.
TEST(BatchRamp, GoesPastAOneStepPlateau) {
  for (int patience : {0, 1}) {
    BatchRamp ramp(ramp_space({{"patience", patience}}));
    for (double sps : {405.0, 670.0, 656.0, 1158.0, 1200.0, 1210.0}) {
      const auto next = ramp.ask();
      if (!next) break;
      TrialResult r;
      r.status = TrialStatus::ok;
      r.samples_per_second = sps;
      ramp.tell(*next, r);
    }
    EXPECT_EQ(ramp.best()->first.batch_size, patience == 0 ? 2 : 32) << "patience " << patience;
  }
}

// Each backend is searched at each precision, in its own study; MFU uses the precision's peak: the measured one
// where the instance has it (bf16 here), the estimate where not.
TEST_F(EngineFixture, PrecisionsAreSeparateStudiesWithTheirOwnMfu) {
  Database db((dir / "t.db").string());
  int calls = 0;
  request.backends = {"eager"};
  request.precisions = {"fp32", "bf16"};
  request.instance.peak = PeakFlops{1e12, 8e12, 8e12, "test"};
  request.instance.measured.bf16 = 4e12;
  const auto summary = search(db, &calls);
  ASSERT_EQ(summary.backends.size(), 2u);
  EXPECT_EQ(summary.backends[0].precision, "fp32");
  EXPECT_EQ(summary.backends[1].precision, "bf16");
  const auto& fp32 = *summary.backends[0].best;
  const auto& bf16 = *summary.backends[1].best;
  EXPECT_NEAR(fp32.mfu, fp32.flops_per_step / fp32.step_time / 1e12, 1e-12);
  EXPECT_NEAR(bf16.mfu, bf16.flops_per_step / bf16.step_time / 4e12, 1e-12);
  EXPECT_EQ(db.best_rows().size(), 2u);
  const std::string log = progress.str();
  EXPECT_NE(log.find("[eager bf16]"), std::string::npos) << log;
}

// The rate is searched once per precision: jit starts from eager's rate by the scaling rules (same batch: the
// same rate) with a local check, the edge extension one rate either side of it, instead of the whole list.
TEST_F(EngineFixture, LaterBackendsStartFromTheFirstBackendsRateByTheScalingRules) {
  Database db((dir / "t.db").string());
  int calls = 0;
  request.backends = {"eager", "jit"};
  const auto summary = search(db, &calls);
  ASSERT_EQ(summary.backends.size(), 2u);
  const auto& jit = summary.backends[1];
  ASSERT_TRUE(jit.best) << jit.failure;
  EXPECT_DOUBLE_EQ(jit.best->learning_rate, 3e-4);
  EXPECT_EQ(jit.lr_stop.rfind("from eager's 3.0e-04 at batch 32 by the scaling rules", 0), 0u) << jit.lr_stop;
  std::vector<double> jit_rates;
  for (const auto& t : db.trials(jit.study_id))
    if (t.spec.purpose == TrialPurpose::learning_rate) jit_rates.push_back(t.spec.learning_rate);
  std::sort(jit_rates.begin(), jit_rates.end());
  ASSERT_EQ(jit_rates.size(), 3u);  // 3e-4, then 9e-4 and 1e-4 either side: both worse
  EXPECT_NEAR(jit_rates[0], 1e-4, 1e-12);
  EXPECT_NEAR(jit_rates[2], 9e-4, 1e-12);

  settings.lr_transfer = false;  // every backend runs the full list (a new database: nothing reused)
  Database full((dir / "full.db").string());
  const auto again = search(full, &calls);
  EXPECT_EQ(again.backends[1].lr_stop, "all learning rates tried");
}

namespace {

// The simulated landscape with a loss that moves 1% from seed to seed (the seed check measures a spread), and for
// jit `jit_shift` more: 0 is the same function (a compiled step's numerics), more is another one.
TrialExecutor seeded_executor(double jit_shift, int* calls) {
  return [jit_shift, calls](const TrialSpec& spec, const std::string&) {
    ++*calls;
    TrialResult r = simulated_trial(spec);
    r.score_loss *= 1 + 0.01 * static_cast<double>(spec.seed % 2) + (spec.step.backend == "jit" ? jit_shift : 0);
    return r;
  };
}

// Each of the backend's learning-rate trials from the study's own seed (the seed check's are from the next).
std::vector<double> first_seed_rates(const Database& db, const BackendOutcome& outcome, uint64_t seed) {
  std::vector<double> rates;
  for (const auto& t : db.trials(outcome.study_id))
    if (t.spec.purpose == TrialPurpose::learning_rate && t.spec.seed == seed) rates.push_back(t.spec.learning_rate);
  std::sort(rates.begin(), rates.end());
  return rates;
}

}  // namespace

// A later backend at the first one's batch and horizon trains one trial at the rate eager's seed check chose; its
// loss there equals eager's (the same function), so the rate is reused: no local check, no seed check of its own.
TEST_F(EngineFixture, ALaterBackendAtTheSameBatchReusesTheSeedCheckedRateAfterOneTrial) {
  Database db((dir / "t.db").string());
  int calls = 0;
  request.backends = {"eager", "jit"};
  settings.seed_check = true;
  settings.lr_reuse = true;
  SearchEngine engine(db, seeded_executor(0, &calls), settings, progress);
  const auto summary = engine.run(request, 3600);
  ASSERT_EQ(summary.backends.size(), 2u);
  const auto& eager = summary.backends[0];
  const auto& jit = summary.backends[1];
  ASSERT_TRUE(jit.best) << jit.failure;
  ASSERT_EQ(jit.best->batch_size, eager.best->batch_size);
  EXPECT_DOUBLE_EQ(jit.best->learning_rate, eager.best->learning_rate);
  EXPECT_EQ(first_seed_rates(db, jit, request.seed), std::vector<double>{eager.best->learning_rate});
  EXPECT_TRUE(first_seed_rates(db, jit, request.seed + 1).empty());  // no seed check of its own
  EXPECT_NE(jit.lr_stop.find("eager's 3.0e-04 (same batch 32, horizon"), std::string::npos) << jit.lr_stop;
  EXPECT_NE(jit.lr_stop.find("reused: this step's loss there 5.0000 against its 5.0000 from the same seed, 0.000% "
                             "apart, within its seed-to-seed spread"), std::string::npos) << jit.lr_stop;
  const std::optional<BestConfig> stored = db.best(jit.study_id);  // the table marks it (report/table_cells.h)
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->stop.lr_cause, StopCause::reused);
  EXPECT_EQ(db.best(eager.study_id)->stop.lr_cause, StopCause::strategy);
  const auto table = gather_tested_models(db, "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  for (const auto& b : table.rows[0].backends)
    EXPECT_EQ(learning_rate_cell(b).find("reused: 1 trial") != std::string::npos, b.backend == "jit")
        << b.backend << ": " << learning_rate_cell(b);
  const auto notes = table_notes(table);
  EXPECT_NE(std::find(notes.begin(), notes.end(), kReusedRateNote), notes.end());
}

// A backend whose loss at eager's rate lies beyond the seed spread (another function) runs the local check, and its
// stop reason says why; lr_reuse false runs it whatever the loss.
TEST_F(EngineFixture, ALaterBackendWhoseLossDiffersBeyondTheSeedSpreadRunsTheLocalCheck) {
  for (const bool reuse : {true, false}) {
    Database db((dir / (reuse ? "reuse.db" : "off.db")).string());
    int calls = 0;
    request.backends = {"eager", "jit"};
    settings.seed_check = true;
    settings.lr_reuse = reuse;
    SearchEngine engine(db, seeded_executor(reuse ? 0.05 : 0, &calls), settings, progress);
    const auto summary = engine.run(request, 3600);
    const auto& jit = summary.backends.at(1);
    ASSERT_TRUE(jit.best) << jit.failure;
    EXPECT_EQ(first_seed_rates(db, jit, request.seed).size(), 3u) << "reuse " << reuse;  // 3e-4 and either side
    EXPECT_EQ(jit.lr_stop.find("eager's 3.0e-04 (same batch 32, horizon 12 steps) not reused: this step's loss "
                               "there 5.2500 against its 5.0000, 4.878% apart, beyond its seed-to-seed spread") == 0,
              reuse) << jit.lr_stop;
    EXPECT_NE(jit.lr_stop.find("from eager's 3.0e-04 at batch 32 by the scaling rules"), std::string::npos);
  }
}

// A best rate at the top of the list is searched past, and the bound leaves it marked in the store.
TEST_F(EngineFixture, ARateAtTheTopOfTheListIsExtendedAndTheBoundIsStored) {
  Database db((dir / "t.db").string());
  int calls = 0;
  request.backends = {"eager"};
  settings.learning_rates = {1e-5, 3e-5};  // the landscape's best is 3e-4
  const auto found = search(db, &calls);
  EXPECT_NEAR(found.backends[0].best->learning_rate, 2.7e-4, 1e-12);
  EXPECT_EQ(db.best_rows()[0].best.stop.lr_edge, RateEdge::none);

  settings.learning_rate_bounds = {1e-7, 1e-4};  // now the bound stops it at 9e-5 < 3e-4
  Database bounded((dir / "bounded.db").string());
  const auto cut = search(bounded, &calls);
  EXPECT_NEAR(cut.backends[0].best->learning_rate, 9e-5, 1e-12);
  EXPECT_EQ(bounded.best_rows()[0].best.stop.lr_edge, RateEdge::above);
  EXPECT_NE(cut.backends[0].lr_stop.find("bound 1e-04 stopped"), std::string::npos) << cut.backends[0].lr_stop;
}

// Step options (attention, optimizer) key their own studies, so results never mix.
TEST_F(EngineFixture, StepOptionsKeySeparateStudies) {
  Database db((dir / "t.db").string());
  int calls = 0;
  request.backends = {"eager"};
  search(db, &calls);
  request.attention = "sdpa";
  request.optimizer = "fused";
  const int before = calls;
  search(db, &calls);
  EXPECT_GT(calls, before);  // nothing reused across step options
  const auto rows = db.best_rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0].key.step_options, rows[1].key.step_options);
}

// Strategies from the registry run the same two stages: batch_search bisects to the memory boundary,
// asha trains rungs of increasing length (its trial specs carry their own step counts).
TEST_F(EngineFixture, RegisteredStrategiesRunBothStages) {
  Database db((dir / "t.db").string());
  std::vector<int> lr_steps;
  settings.batch_tuner = "batch_search";
  settings.lr_tuner = "asha";
  settings.lr_train_steps = 27;
  settings.tuner_options["asha"] = {{"eta", 3}, {"rungs", 3}};
  request.backends = {"eager"};
  SearchEngine engine(db, [&lr_steps](const TrialSpec& s, const std::string&) {
      if (s.purpose == TrialPurpose::learning_rate) lr_steps.push_back(s.train_steps);
      return simulated_trial(s);
    }, settings, progress);
  const auto summary = engine.run(request, 3600);
  ASSERT_TRUE(summary.backends[0].best.has_value()) << summary.backends[0].failure;
  EXPECT_LT(summary.backends[0].best->batch_size, 64);  // 64 is out of memory in the simulation
  EXPECT_GE(summary.backends[0].best->batch_size, 32);
  ASSERT_FALSE(lr_steps.empty());
  EXPECT_LT(*std::min_element(lr_steps.begin(), lr_steps.end()), 27);  // a short first rung
  EXPECT_EQ(*std::max_element(lr_steps.begin(), lr_steps.end()), 27);  // the survivors train in full
}

// Objective time-to-loss on the simulated machine: each step lowers the loss by more the nearer the rate
// is to 3e-4 and the larger the batch (less than in proportion), so neither extreme batch wins.
TEST_F(EngineFixture, TimeToLossStatesItsTargetAndSavesTheFastestConfigToTheTarget) {
  Database db((dir / "t.db").string());
  request.backends = {"eager"};
  settings.objective = "time-to-loss";
  settings.target_samples = 256;
  settings.target_batch = 8;
  settings.target_learning_rate = 1e-4;
  int calls = 0;
  auto executor = [&calls](const TrialSpec& s, const std::string&) {
    ++calls;
    TrialResult r = simulated_trial(s);
    r.wall_seconds = 0.001;  // the out-of-memory trial too: every trial counts in the cost
    if (s.purpose != TrialPurpose::learning_rate || !r.ok()) return r;
    const double per_step = 0.02 * std::sqrt(s.batch_size) / (1 + std::fabs(std::log10(s.learning_rate / 3e-4)));
    for (int k = 1; k <= s.train_steps; ++k) r.losses.push_back(7 - per_step * k);
    r.score_loss = r.losses.back();
    return r;
  };
  SearchEngine engine(db, executor, settings, progress);
  const SearchSummary summary = engine.run(request, 3600);
  EXPECT_EQ(summary.objective, "time-to-loss");
  const auto& eager = summary.backends.at(0);
  ASSERT_TRUE(eager.time_to_loss && eager.time_to_loss->best) << eager.failure << eager.lr_stop;
  const auto& ttl = *eager.time_to_loss;
  EXPECT_NE(ttl.target_source.find("batch 8"), std::string::npos) << ttl.target_source;
  for (const auto& t : ttl.trials)
    if (t.reaches()) EXPECT_GE(t.seconds_to_target, ttl.best->seconds_to_target);
  ASSERT_TRUE(eager.best);
  EXPECT_EQ(eager.best->batch_size, ttl.best->candidate.batch_size);
  EXPECT_DOUBLE_EQ(eager.best->learning_rate, ttl.best->candidate.learning_rate);
  EXPECT_EQ(eager.trials_run, calls);
  EXPECT_NEAR(eager.trial_seconds, 0.001 * calls, 1e-9);
}

namespace {

TrialSpec predicted_spec(TrialPurpose purpose, int batch, int steps) {
  TrialSpec s;
  s.purpose = purpose;
  s.batch_size = batch;
  s.train_steps = steps;
  return s;
}

TrialResult ran(TrialStatus status, double wall, double step, double compile) {
  TrialResult r;
  r.status = status;
  r.wall_seconds = wall;
  r.step_time_median = step;
  r.compile_seconds = compile;
  if (status == TrialStatus::ok) r.step_times = std::vector<double>(10, step);
  return r;
}

}  // namespace

// One predictor for every stage: a learning-rate trial at a measured batch costs the trials' fixed part, the
// compile and its steps; a failed trial's wall time (a 600 s timeout) is no fixed part, but bounds its batch; a
// new ramp size costs the fixed part, the compile and the steps the last ones took at the extrapolated step time.
TEST(TrialTimePredictor, PredictsFromMeasuredStepsAndIgnoresFailuresFixedPart) {
  TrialTimePredictor p;
  const TrialSpec at8 = predicted_spec(TrialPurpose::throughput, 8, 0);
  const TrialResult fast = ran(TrialStatus::ok, 3.0, 0.1, 0.5);  // 3 s = 0.5 compile + 1 s of steps + 1.5 fixed
  p.observe(at8, fast);
  p.observe_run(at8, fast);
  EXPECT_DOUBLE_EQ(p.predict(predicted_spec(TrialPurpose::learning_rate, 8, 12)), 1.5 + 0.5 + 12 * 0.1);
  // One measured batch: 0.1 s x (1 + 16/8) / 2 per step, for 2 warm-up + the 10 steady steps the trial at 8 took.
  EXPECT_NEAR(p.predict(predicted_spec(TrialPurpose::throughput, 16, 0)), 1.5 + 0.5 + (2 + 10) * 0.15, 1e-12);
  const TrialSpec at16 = predicted_spec(TrialPurpose::throughput, 16, 0);
  const TrialResult timeout = ran(TrialStatus::timeout, 600, 0, 0);
  p.observe(at16, timeout);
  p.observe_run(at16, timeout);
  EXPECT_DOUBLE_EQ(p.predict(predicted_spec(TrialPurpose::learning_rate, 8, 12)), 1.5 + 0.5 + 12 * 0.1);
  EXPECT_DOUBLE_EQ(p.predict(predicted_spec(TrialPurpose::learning_rate, 16, 12)), 600)
      << "a timeout at 16: at least its wall time";
}

namespace {

// A throughput trial that fit at this batch: `steady` steps of `step` s after 2 warm-up steps of `step` s each.
void observe_fit(TrialTimePredictor& p, int batch, double step, int steady, double wall, double compile = 0) {
  const TrialSpec spec = predicted_spec(TrialPurpose::throughput, batch, 0);
  TrialResult r = ran(TrialStatus::ok, wall, step, compile);
  r.step_times = std::vector<double>(steady, step);
  r.first_steps_seconds = spec.measure.warmup_steps * step;
  p.observe(spec, r);
  p.observe_run(spec, r);
}

}  // namespace

// Two or more measured batches: the least-squares line of step time on batch, exact on points of a line; a
// measured batch is its own measure; the line never goes below a smaller batch's step time, nor below a larger
// batch's time per sample.
TEST(TrialTimePredictor, FitsTheStepTimeLineOfTheMeasuredBatches) {
  TrialTimePredictor p;
  EXPECT_EQ(p.step_seconds(4), 0) << "nothing measured";
  for (const int b : {1, 2, 4}) observe_fit(p, b, 0.01 + 0.002 * b, 10, 3.0);
  EXPECT_NEAR(p.step_seconds(8), 0.01 + 0.002 * 8, 1e-12);
  EXPECT_NEAR(p.step_seconds(64), 0.01 + 0.002 * 64, 1e-12);
  EXPECT_NEAR(p.step_seconds(3), 0.01 + 0.002 * 3, 1e-12);
  EXPECT_DOUBLE_EQ(p.step_seconds(2), 0.01 + 0.002 * 2);

  TrialTimePredictor falling;  // steps got faster with the batch (launch-bound noise): no faster than batch 1's
  observe_fit(falling, 1, 0.050, 10, 3.0);
  observe_fit(falling, 2, 0.045, 10, 3.0);
  observe_fit(falling, 4, 0.040, 10, 3.0);
  EXPECT_DOUBLE_EQ(falling.step_seconds(8), 0.050);

  TrialTimePredictor steep;  // the line through (8, 0.1) and (16, 0.3) is below 0 at 2: no faster per sample than 16
  observe_fit(steep, 8, 0.1, 10, 3.0);
  observe_fit(steep, 16, 0.3, 10, 3.0);
  EXPECT_NEAR(steep.step_seconds(2), 0.3 * 2 / 16, 1e-12);
}

// One measured batch b0 (step t0): t0 x (1 + b/b0) / 2, half per-step and half per-sample.
TEST(TrialTimePredictor, OneMeasuredBatchAssumesHalfTheStepGrowsWithIt) {
  TrialTimePredictor p;
  observe_fit(p, 4, 0.1, 13, 3.0, 0.4);  // fixed part: 3 - 0.4 - (2 + 13) x 0.1 = 1.1
  EXPECT_DOUBLE_EQ(p.step_seconds(8), 0.15);
  EXPECT_DOUBLE_EQ(p.step_seconds(2), 0.075);
  EXPECT_DOUBLE_EQ(p.step_seconds(4), 0.1);
  EXPECT_NEAR(p.predict(predicted_spec(TrialPurpose::throughput, 8, 0)), 1.1 + 0.4 + (2 + 13) * 0.15, 1e-12);
}

// Inductor's later trials at a shape compile warm from the study's cache: once one did, a trial at a batch the search
// ran is expected to take the warm compile, a new batch still the cold one (a rate trial at the ramp's batch had been
// expected to take a cold compile's 2m 39s where it took 53 s, and the budget refused it).
TEST(TrialTimePredictor, AShapeCompiledBeforeIsExpectedToCompileWarm) {
  TrialTimePredictor p;
  observe_fit(p, 8, 0.1, 10, 123.0, 120.0);  // cold: fixed part 123 - 120 - 12 x 0.1 = 1.8
  const TrialSpec rate_at8 = predicted_spec(TrialPurpose::learning_rate, 8, 12);
  EXPECT_NEAR(p.predict(rate_at8), 1.8 + 120 + 12 * 0.1, 1e-9) << "no warm compile seen yet: the cold one";
  TrialResult warm = ran(TrialStatus::ok, 14.0, 0.1, 11.0);
  warm.compile_cache = "warm";
  warm.first_steps_seconds = rate_at8.measure.warmup_steps * 0.1;
  p.observe(rate_at8, warm);
  EXPECT_NEAR(p.predict(rate_at8), 1.8 + 11 + 12 * 0.1, 1e-9);
  EXPECT_NEAR(p.predict(predicted_spec(TrialPurpose::learning_rate, 16, 12)), 1.8 + 120 + 12 * 0.15, 1e-9)
      << "a new shape compiles cold";
  TrialResult repeat = ran(TrialStatus::ok, 14.0, 0.1, 11.0);
  repeat.compile_cache = "warm";
  repeat.step_times = std::vector<double>(10, 0.1);
  p.observe(predicted_spec(TrialPurpose::throughput, 8, 0), repeat);
  EXPECT_NEAR(p.predict(predicted_spec(TrialPurpose::learning_rate, 16, 12)), 1.8 + 120 + 12 * 0.15, 1e-9)
      << "a warm repeat at 8 leaves the cold compile a new shape pays";
}

// A throughput trial's steps: the steady count the earlier trials took, within the step cap and the time cap.
TEST(TrialTimePredictor, ThroughputStepsFollowTheStoppingRule) {
  TrialTimePredictor p;
  observe_fit(p, 1, 0.5, 20, 12.0);  // fixed part 12 - 22 x 0.5 = 1
  TrialSpec next = predicted_spec(TrialPurpose::throughput, 2, 0);
  next.measure.measure_seconds = 3;  // 0.75 s steps: 4 steady steps reach the 3 s cap
  EXPECT_NEAR(p.predict(next), 1 + (2 + 4) * 0.75, 1e-12);
  next.measure.max_measure_steps = 10;
  next.measure.measure_seconds = 100;
  EXPECT_NEAR(p.predict(next), 1 + (2 + 10) * 0.75, 1e-12) << "the step cap";
}

// A learning-rate trial: total_steps(spec) steps at its batch's step time, measured or fitted; the compile part
// (compile + the warm-up's excess over steady steps) from the nearest measured batch.
TEST(TrialTimePredictor, LearningRateTrialTrainsItsStepsAtTheBatchsStepTime) {
  TrialTimePredictor p;
  const TrialSpec at1 = predicted_spec(TrialPurpose::throughput, 1, 0);
  TrialResult r = ran(TrialStatus::ok, 10.0, 0.04, 0.2);
  r.step_times = std::vector<double>(30, 0.04);
  r.first_steps_seconds = 5.08;  // jit's profiling runs: 5 s beyond 2 steady steps
  p.observe(at1, r);
  p.observe_run(at1, r);  // fixed part: 10 - 0.2 - 5.08 - 1.2 = 3.52
  EXPECT_NEAR(p.predict(predicted_spec(TrialPurpose::learning_rate, 1, 12)), 3.52 + 5.2 + 12 * 0.04, 1e-12);
  EXPECT_NEAR(p.predict(predicted_spec(TrialPurpose::learning_rate, 1, 1)), 3.52 + 5.2 + 3 * 0.04, 1e-12)
      << "at least the warm-up and one step (total_steps)";
  observe_fit(p, 2, 0.06, 30, 3.52 + 0.2 + 32 * 0.06, 0.2);
  EXPECT_NEAR(p.predict(predicted_spec(TrialPurpose::learning_rate, 4, 12)), 3.52 + 0.2 + 12 * 0.10, 1e-9)
      << "the line through (1, 0.04) and (2, 0.06); the compile part of batch 2, the nearest";
}

namespace {

struct Replayed {
  int64_t id;
  std::string study, purpose;
  int batch;
  double predicted, measured;
  bool covered;  // a throughput trial at this batch or a smaller one fit before it
  double error() const { return std::fabs(predicted - measured) / measured; }
};

// Each study's trials in the order they ran (by id), each predicted from the ones before it, as the search's
// stage saw them; the study's first trial has nothing to learn from and is left out.
std::vector<Replayed> replay_store(const std::string& path) {
  Database db(path);
  std::vector<Replayed> out;
  for (const auto& [study_id, key] : db.studies()) {
    TrialTimePredictor p;
    int smallest_fit = 0;
    const std::vector<StoredTrial> trials = db.trials(study_id);
    for (size_t i = 0; i < trials.size(); ++i) {
      const StoredTrial& t = trials[i];
      if (i > 0)
        out.push_back({t.id, key.backend + " " + key.precision, to_string(t.spec.purpose), t.spec.batch_size,
                       p.predict(t.spec), t.result.wall_seconds,
                       smallest_fit > 0 && smallest_fit <= t.spec.batch_size});
      p.observe(t.spec, t.result);
      p.observe_run(t.spec, t.result);
      const bool fit = t.spec.purpose == TrialPurpose::throughput && t.result.ok() && t.result.step_time_median > 0;
      if (fit && (smallest_fit == 0 || t.spec.batch_size < smallest_fit)) smallest_fit = t.spec.batch_size;
    }
  }
  return out;
}

}  // namespace

// Trials of the committed H200 search that no prediction from the trials before them can bring within 25%, each
// within 45% instead. The fixed part (wall - compile - steps: process start, CUDA context, model build) of its 43
// trials spreads over 1.96-3.16 s however alike the work, so identical learning-rate trials differ by up to 39%
// (jit bf16: 2.82 s vs 3.93 s); the predictor takes the median of the ones so far.
const std::map<int64_t, const char*> kBeyond25Percent = {
    {20, "eager bf16 batch 2, +40%: one batch measured (the half-per-step rule: 0.080 s, then 0.050 s measured, "
         "below batch 1's 0.054 s) and that trial's fixed part 3.04 s, this one's 2.41 s"},
    {22, "eager bf16 lr batch 4, +25.4%: fixed part 2.02 s against a median of 2.59 s so far"},
    {28, "jit bf16 batch 4, +38%: timing stopped on the CI after 15 steady steps where both earlier trials ran "
         "30, and a fixed part of 2.06 s against 2.79 s"},
    {33, "jit bf16 lr batch 8, +34%: fixed part 1.99 s against a median of 2.77 s; the same lr trial at another "
         "rate took 3.93 s"},
    {35, "cuda-graph bf16 batch 2, -28%: fixed part 3.05 s, learnt from one trial's 1.97 s"},
};

// The committed H200 search (reports/gpu-h200/gpu.db, bert-base-cased, eager/jit/cuda-graph x fp32/bf16) replayed:
// every trial after its study's first (all 37 had a throughput trial at the same or a smaller batch before them)
// is predicted within 25% of its measured wall time but those listed above; the median error stays under 20%.
// (The 2x rule predicted 7.4 s for eager fp32's 3.7 s batch 4.)
TEST(TrialTimePredictor, ReplaysTheCommittedGpuSearchWithin25Percent) {
  const auto dir = temp_dir("predictor-replay");
  std::filesystem::copy_file(std::filesystem::path(tune_home()) / "reports/gpu-h200/gpu.db", dir / "gpu.db");
  const std::vector<Replayed> replayed = replay_store((dir / "gpu.db").string());
  ASSERT_EQ(replayed.size(), 37u);
  std::vector<double> errors;
  std::cout << "trial study            purpose        batch predicted measured error\n";
  for (const Replayed& r : replayed) {
    std::cout << strf("%5lld %-16s %-14s %5d %8.2f s %7.2f s %+5.0f%%\n", static_cast<long long>(r.id),
                      r.study.c_str(), r.purpose.c_str(), r.batch, r.predicted, r.measured,
                      100 * (r.predicted - r.measured) / r.measured);
    ASSERT_TRUE(r.covered) << "trial " << r.id << ": no batch at or below its own measured before it";
    errors.push_back(r.error());
    const bool listed = kBeyond25Percent.count(r.id) > 0;
    EXPECT_LE(r.error(), listed ? 0.45 : 0.25) << "trial " << r.id << " (" << r.study << " " << r.purpose << " batch "
                                               << r.batch << "): predicted " << r.predicted << " s, measured "
                                               << r.measured << " s " << (listed ? kBeyond25Percent.at(r.id) : "");
  }
  const double median_error = median(errors);
  EXPECT_LT(median_error, 0.20);
  std::cout << strf("%zu trials: median error %.1f%%, max %.1f%%\n", errors.size(), 100 * median_error,
                    100 * *std::max_element(errors.begin(), errors.end()));
}

// The default coverage: fp32 everywhere, bf16 where the hardware runs it faster, fp16 on a GPU; the compilers
// users run, cuda-graph only on a GPU.
TEST(Screening, DefaultCoverageFollowsTheInstance) {
  Instance cpu;
  cpu.peak.fp32 = 1e12;
  cpu.peak.bf16 = 1e12;  // emulated: no faster than fp32
  EXPECT_EQ(default_precisions(cpu), (std::vector<std::string>{"fp32"}));
  cpu.peak.bf16 = 2e12;  // AVX512-BF16
  EXPECT_EQ(default_precisions(cpu), (std::vector<std::string>{"fp32", "bf16"}));
  EXPECT_EQ(default_backends(cpu), (std::vector<std::string>{"eager", "jit", "inductor"}));
  Instance gpu;
  gpu.device = "cuda";
  EXPECT_EQ(default_precisions(gpu), (std::vector<std::string>{"fp32", "bf16", "fp16"}));
  EXPECT_EQ(default_backends(gpu), (std::vector<std::string>{"eager", "jit", "inductor", "cuda-graph"}));
  // Eager's optimizer as fast as torch's default there: fused on a GPU (torch's foreach path), torch's AdamW on a CPU.
  EXPECT_EQ(default_optimizer(gpu), "fused");
  gpu.device = "cuda:1";
  EXPECT_EQ(default_optimizer(gpu), "fused");
  EXPECT_EQ(default_optimizer(cpu), "adamw");
}

// On the simulated machine bf16 doubles throughput and jit is 1.5x eager: jit bf16 is the fastest, eager bf16
// (67% of it) stays as bf16's baseline, fp32 cannot win and a backend that fails to compile is dropped with its
// error. Only the kept pairs are searched, and their ramps reuse the screening trial.
TEST_F(EngineFixture, ScreenSearchesOnlyWhatCanWin) {
  Database db((dir / "t.db").string());
  int calls = 0;
  request.backends = {"eager", "jit", "broken"};
  request.precisions = {"fp32", "bf16"};
  request.screen = true;
  const auto summary = search(db, &calls);
  ASSERT_EQ(summary.screening.size(), 6u);
  std::map<std::string, const ScreenEntry*> by_pair;
  for (const auto& e : summary.screening) by_pair[e.backend + " " + e.precision] = &e;
  EXPECT_TRUE(by_pair.at("jit bf16")->kept);
  EXPECT_TRUE(by_pair.at("eager bf16")->kept);
  EXPECT_NE(by_pair.at("eager bf16")->reason.find("baseline of bf16"), std::string::npos) << by_pair.at("eager bf16")->reason;
  for (const char* dropped : {"eager fp32", "jit fp32", "broken fp32", "broken bf16"})
    EXPECT_FALSE(by_pair.at(dropped)->kept) << dropped;
  EXPECT_NE(by_pair.at("jit fp32")->reason.find("50% of the fastest (jit bf16)"), std::string::npos)
      << by_pair.at("jit fp32")->reason;
  EXPECT_NE(by_pair.at("broken fp32")->reason.find("compile_error: unsupported op"), std::string::npos);
  EXPECT_EQ(by_pair.at("jit bf16")->batch_size, 8);

  ASSERT_EQ(summary.backends.size(), 2u);
  EXPECT_EQ(summary.backends[0].backend + " " + summary.backends[0].precision, "eager bf16");
  EXPECT_EQ(summary.backends[1].backend + " " + summary.backends[1].precision, "jit bf16");
  for (const auto& b : summary.backends) EXPECT_GE(b.trials_reused, 1) << b.backend;  // batch 8 from the screen
  // The store keeps each dropped pair's verdict, so the table gives it a row saying why; the kept ones have bests.
  const auto screened = db.screened_out();
  ASSERT_EQ(screened.size(), 4u);
  for (const auto& s : screened) {
    EXPECT_EQ(s.verdict.reason, by_pair.at(s.key.backend + " " + s.key.precision)->reason);
    EXPECT_EQ(s.verdict.batch_size, 8);
    EXPECT_GT(s.verdict.search_budget_seconds, 0);
  }
  for (const auto& b : summary.backends) EXPECT_GT(b.best->search_budget_seconds, 0) << b.backend;

  // Named lists are searched as named: no screen.
  request.screen = false;
  request.backends = {"eager", "jit"};
  const auto named = search(db, &calls);
  EXPECT_TRUE(named.screening.empty());
  EXPECT_EQ(named.backends.size(), 4u);
}

// The screen's trials share screen_budget_share of the budget: a compile slower than its pair's share is stopped
// as a timeout and dropped, saying why; a larger budget tries it again (a timeout under a shorter limit is no
// answer) and keeps it.
TEST_F(EngineFixture, TheScreenIsHeldToItsShareOfTheBudget) {
  Database db((dir / "t.db").string());
  request.backends = {"eager", "slowcompile"};
  request.precisions = {"fp32"};
  request.screen = true;
  settings.screen_budget_share = 0.5;
  settings.trial_timeout_seconds = 3000;  // the compile takes 2000 s
  std::map<std::string, std::vector<double>> limits;  // backend -> each screen trial's timeout
  auto search_within = [&](double budget) {
    SearchEngine engine(db, [&](const TrialSpec& s, const std::string&) {
      if (s.purpose == TrialPurpose::throughput && s.batch_size == 8) limits[s.step.backend].push_back(s.timeout_seconds);
      if (s.step.backend != "slowcompile") return simulated_trial(s);
      if (s.timeout_seconds < 2000) return failed_result(TrialStatus::timeout, "compile", "ran past its time limit");
      TrialSpec as_jit = s;
      as_jit.step.backend = "jit";
      return simulated_trial(as_jit);
    }, settings, progress);
    return engine.run(request, budget);
  };
  const auto small = search_within(3600);  // 1800 s for 2 pairs: eager may take it all, slowcompile what it left
  ASSERT_EQ(small.screening.size(), 2u);
  for (const auto& e : small.screening) {
    EXPECT_EQ(e.kept, e.backend == "eager") << e.backend << ": " << e.reason;
    if (e.backend == "slowcompile")
      EXPECT_NE(e.reason.find("dropped: timeout"), std::string::npos) << e.reason;
    if (e.backend == "slowcompile")
      EXPECT_NE(e.reason.find("screen's 50% of the budget"), std::string::npos) << e.reason;
  }
  for (const auto& [backend, seconds] : limits)
    for (double limit : seconds) EXPECT_LE(limit, 1800.0 + 1) << backend;

  const auto large = search_within(4 * 3600);  // 7200 s: over trial_timeout
  ASSERT_EQ(limits["slowcompile"].size(), 2u);  // run again, not reused from the store
  EXPECT_DOUBLE_EQ(limits["slowcompile"].back(), settings.trial_timeout_seconds);
  for (const auto& e : large.screening)
    if (e.backend == "slowcompile") EXPECT_TRUE(e.kept) << e.precision << ": " << e.reason;
}

// A slow compile between fast pairs gets what they leave, not an equal share: of a 3000 s screen, eager's trial
// took 60 s, so slowcompile may take 3000 - 60 (the one pair after it expected at the median so far, 60 s), where
// an equal third (1000 s) would have stopped its 2000 s compile.
TEST_F(EngineFixture, ASlowCompileInTheScreenGetsWhatTheFastPairsLeave) {
  Database db((dir / "t.db").string());
  request.backends = {"eager", "slowcompile", "jit"};
  request.precisions = {"fp32"};
  request.screen = true;
  settings.screen_budget_share = 0.5;
  settings.trial_timeout_seconds = 6000;
  std::map<std::string, double> limit;
  SearchEngine engine(db, [&](const TrialSpec& s, const std::string&) {
    if (s.purpose == TrialPurpose::throughput && s.batch_size == 8) limit[s.step.backend] = s.timeout_seconds;
    TrialSpec as = s;
    if (s.step.backend == "slowcompile") as.step.backend = "jit";
    TrialResult r = s.step.backend == "slowcompile" && s.timeout_seconds < 2000
                        ? failed_result(TrialStatus::timeout, "compile", "ran past its time limit")
                        : simulated_trial(as);
    r.wall_seconds = s.step.backend == "slowcompile" ? 2000 : 60;
    return r;
  }, settings, progress);
  const auto summary = engine.run(request, 6000);
  ASSERT_EQ(summary.screening.size(), 3u);
  EXPECT_NEAR(limit.at("eager"), 3000, 1);  // nothing ran before it
  EXPECT_NEAR(limit.at("slowcompile"), 3000 - 60, 1);
  for (const auto& e : summary.screening)
    if (e.backend == "slowcompile") EXPECT_TRUE(e.kept) << e.reason;
}

// A slow pair that spends the screen's share leaves the next precision's native (its baseline) the median trial so
// far, not a second: without it that precision has no speed-up to report.
TEST_F(EngineFixture, APrecisionsNativeInTheScreenGetsAtLeastTheMedianTrial) {
  Database db((dir / "t.db").string());
  request.backends = {"eager", "slowcompile"};
  request.precisions = {"fp32", "bf16"};
  request.screen = true;
  settings.screen_budget_share = 0.5;
  settings.trial_timeout_seconds = 6000;
  std::map<std::string, double> limit;
  SearchEngine engine(db, [&](const TrialSpec& s, const std::string&) {
    if (s.purpose == TrialPurpose::throughput && s.batch_size == 8)
      limit[s.step.backend + " " + s.step.precision] = s.timeout_seconds;
    TrialSpec as = s;
    if (s.step.backend == "slowcompile") as.step.backend = "jit";
    TrialResult r = simulated_trial(as);
    r.wall_seconds = s.step.backend == "slowcompile" ? 5000 : 60;
    return r;
  }, settings, progress);
  const auto summary = engine.run(request, 4000);
  ASSERT_EQ(summary.screening.size(), 4u);
  EXPECT_NEAR(limit.at("eager fp32"), 2000, 1);  // the screen's share: nothing ran before it
  // The share left (~2000 s) less the median (2530 s) for the one pair after it is nothing: a compiled pair would
  // get 1 s here; the native gets the median of 60 s and 5000 s.
  EXPECT_NEAR(limit.at("eager bf16"), 2530, 1);
  for (const auto& e : summary.screening)
    if (e.backend == "eager" && e.precision == "bf16") EXPECT_EQ(e.result.status, TrialStatus::ok) << e.reason;
}

namespace {

// A screening trial that ran at batch 8 with this throughput.
ScreenEntry screen_entry(const char* backend, const char* precision, double samples_per_second) {
  ScreenEntry e{backend, precision, 8, {}, true, ""};
  e.result.status = TrialStatus::ok;
  e.result.samples_per_second = samples_per_second;
  return e;
}

}  // namespace

// A precision that can win keeps its native and its fastest compiler (the row's compile-or-not answer) even when
// that compiler is slow; a slower second compiler is dropped, and so is every pair of a precision that cannot win.
TEST(Screening, AKeptPrecisionKeepsItsNativeAndFastestCompiler) {
  std::vector<ScreenEntry> entries{screen_entry("eager", "fp32", 1000), screen_entry("jit", "fp32", 560),
                                   screen_entry("inductor", "fp32", 400), screen_entry("eager", "bf16", 500),
                                   screen_entry("jit", "bf16", 700)};
  judge_screen(entries, "eager", 0.8);
  std::vector<bool> kept;
  for (const auto& e : entries) kept.push_back(e.kept);
  EXPECT_EQ(kept, (std::vector<bool>{true, true, false, false, false}));
  EXPECT_NE(entries[1].reason.find("fp32's fastest compiler"), std::string::npos) << entries[1].reason;
  EXPECT_NE(entries[2].reason.find("40% of the fastest (eager fp32), below the 80% kept by more than the screen's "
                                    "noise band (10%); indicative"), std::string::npos)
      << entries[2].reason;
}

// One trial per pair cannot tell 74% from 84% of the fastest (issue 33: bert-tiny bf16 read both in two runs): a
// pair below the kept share by less than the noise band is searched, and says why; below the band it is dropped.
TEST(Screening, APairWithinTheNoiseBandIsSearchedNotDropped) {
  std::vector<ScreenEntry> entries{screen_entry("eager", "fp32", 1000), screen_entry("jit", "fp32", 900),
                                   screen_entry("eager", "bf16", 740), screen_entry("jit", "bf16", 690)};
  judge_screen(entries, "eager", 0.8);
  EXPECT_TRUE(entries[2].kept) << entries[2].reason;
  EXPECT_NE(entries[2].reason.find("within the screen's noise band (10%) of the 80% kept"), std::string::npos)
      << entries[2].reason;
  EXPECT_TRUE(entries[3].kept) << entries[3].reason;  // bf16 can win: its fastest compiler stays to answer
  entries = {screen_entry("eager", "fp32", 1000), screen_entry("eager", "bf16", 690)};
  judge_screen(entries, "eager", 0.8);
  EXPECT_FALSE(entries[1].kept) << entries[1].reason;
}

// A precision is judged against the backends that ran at it (issue 33: Inductor fp32 compiled within the screen's
// share in one sitting and timed out at bf16, so bf16's eager and jit read 57-62% of it and the row was dropped;
// in the other sitting Inductor fp32 timed out too and bf16 was searched). Here bf16's eager is 71% of eager
// fp32, within the band, though 66% of Inductor fp32, which has no bf16 figure to be compared with.
TEST(Screening, APrecisionIsJudgedAgainstTheBackendsThatRanAtIt) {
  ScreenEntry timed_out = screen_entry("inductor", "bf16", 0);
  timed_out.result.status = TrialStatus::timeout;
  std::vector<ScreenEntry> entries{screen_entry("eager", "fp32", 2100), screen_entry("jit", "fp32", 1900),
                                   screen_entry("inductor", "fp32", 2250), screen_entry("eager", "bf16", 1500),
                                   screen_entry("jit", "bf16", 1200), timed_out};
  judge_screen(entries, "eager", 0.8);
  EXPECT_TRUE(entries[3].kept) << entries[3].reason;
  EXPECT_NE(entries[3].reason.find("71% of the fastest backend that also ran at bf16 (eager fp32)"), std::string::npos)
      << entries[3].reason;
  EXPECT_TRUE(entries[4].kept) << entries[4].reason;  // bf16's fastest compiler that ran
  EXPECT_NE(entries[2].reason.find("100% of the fastest (inductor fp32)"), std::string::npos) << entries[2].reason;
  EXPECT_TRUE(screen_rechecks(entries, "eager", 0.8).empty());  // nothing to drop, nothing to measure again
}

// One round that would drop a precision is measured again: its fastest pair and the pair it was judged against.
// The precision goes only when the second round agrees; a second round that puts it within the band keeps its
// native and fastest compiler. Under a third of its reference one round stands, with no second round.
TEST(Screening, APrecisionIsDroppedOnlyWhenASecondRoundAgrees) {
  std::vector<ScreenEntry> entries{screen_entry("eager", "fp32", 1000), screen_entry("jit", "fp32", 950),
                                   screen_entry("eager", "bf16", 600), screen_entry("jit", "bf16", 620)};
  std::vector<ScreenRecheck> rechecks = screen_rechecks(entries, "eager", 0.8);
  ASSERT_EQ(rechecks.size(), 1u);
  EXPECT_EQ(rechecks[0].precision, "bf16");
  EXPECT_EQ(rechecks[0].pair, 3u);  // jit bf16, bf16's fastest
  EXPECT_EQ(rechecks[0].reference, 0u);
  EXPECT_FALSE(rechecks[0].share);

  rechecks[0].share = 0.97;  // the burst that slowed round 1 is gone
  judge_screen(entries, "eager", 0.8, rechecks);
  EXPECT_TRUE(entries[2].kept) << entries[2].reason;
  EXPECT_TRUE(entries[3].kept) << entries[3].reason;
  EXPECT_NE(entries[2].reason.find("(its second round: jit bf16 at 97% of eager fp32)"), std::string::npos)
      << entries[2].reason;

  for (auto& e : entries) e.kept = true;
  rechecks[0].share = 0.65;  // both rounds below the band
  judge_screen(entries, "eager", 0.8, rechecks);
  EXPECT_FALSE(entries[2].kept);
  EXPECT_FALSE(entries[3].kept);
  EXPECT_NE(entries[3].reason.find("noise band (10%); in both rounds"), std::string::npos) << entries[3].reason;

  for (auto& e : entries) e.kept = true;
  rechecks[0].share.reset();  // it did not run: one round stands, and says so
  judge_screen(entries, "eager", 0.8, rechecks);
  EXPECT_FALSE(entries[3].kept);
  EXPECT_NE(entries[3].reason.find("indicative: one trial each"), std::string::npos) << entries[3].reason;
  EXPECT_NE(entries[3].reason.find("(its second round, jit bf16 against eager fp32, did not run)"), std::string::npos)
      << entries[3].reason;

  entries = {screen_entry("eager", "fp32", 1000), screen_entry("eager", "bf16", 300)};
  EXPECT_TRUE(screen_rechecks(entries, "eager", 0.8).empty());
}

// Dropping a second compiler of a kept precision is a decision too (issue 33: four such single-trial drops at
// 67-68% of the fastest differed between two sittings): between half the reference and the band it is measured
// again, kept when the second round puts it within the band, dropped "in both rounds" when it agrees.
TEST(Screening, ASecondCompilerIsDroppedOnlyWhenASecondRoundAgrees) {
  std::vector<ScreenEntry> entries{screen_entry("eager", "fp32", 1000), screen_entry("jit", "fp32", 950),
                                   screen_entry("inductor", "fp32", 650), screen_entry("eager", "bf16", 300)};
  std::vector<ScreenRecheck> rechecks = screen_rechecks(entries, "eager", 0.8);
  ASSERT_EQ(rechecks.size(), 1u);  // bf16 at 30% is below a third: its one round stands
  EXPECT_TRUE(rechecks[0].one_backend);
  EXPECT_EQ(rechecks[0].pair, 2u);
  EXPECT_EQ(rechecks[0].reference, 0u);

  rechecks[0].share = 0.85;
  judge_screen(entries, "eager", 0.8, rechecks);
  EXPECT_TRUE(entries[2].kept) << entries[2].reason;
  EXPECT_NE(entries[2].reason.find("but its second round put it within the screen's noise band"), std::string::npos)
      << entries[2].reason;
  EXPECT_NE(entries[2].reason.find("(its second round: inductor fp32 at 85% of eager fp32)"), std::string::npos)
      << entries[2].reason;
  EXPECT_EQ(entries[1].reason.find("second round"), std::string::npos) << entries[1].reason;  // not its round

  for (auto& e : entries) e.kept = true;
  rechecks[0].share = 0.6;
  judge_screen(entries, "eager", 0.8, rechecks);
  EXPECT_FALSE(entries[2].kept);
  EXPECT_NE(entries[2].reason.find("noise band (10%); in both rounds"), std::string::npos) << entries[2].reason;
  EXPECT_TRUE(entries[1].kept);

  for (auto& e : entries) e.kept = true;
  rechecks[0].share.reset();
  judge_screen(entries, "eager", 0.8, rechecks);
  EXPECT_FALSE(entries[2].kept);
  EXPECT_NE(entries[2].reason.find("indicative: one trial each (its second round, inductor fp32 against eager fp32, "
                                   "did not run)"), std::string::npos)
      << entries[2].reason;
}

// In a search: round 1 reads bf16 at 60% of fp32 (slowed 3.3x, as a burst does); the second round, bf16 first,
// reads it at twice fp32, so bf16 is searched. The second round's trials are repeats of their own
// (kScreenRecheckRepeat), stored, and not points of the row's batch curve.
TEST_F(EngineFixture, APrecisionOneRoundWouldDropIsMeasuredAgainInReverseOrder) {
  Database db((dir / "t.db").string());
  request.backends = {"eager"};
  request.precisions = {"fp32", "bf16"};
  request.screen = true;
  std::vector<std::string> screened;  // "precision repeat" of each batch-8 throughput trial, in the order run
  SearchEngine engine(db, [&](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    if (s.purpose != TrialPurpose::throughput || s.batch_size != 8) return r;
    screened.push_back(s.step.precision + " " + std::to_string(s.repeat));
    if (s.step.precision == "bf16" && s.repeat == 0) {
      r.samples_per_second *= 0.3;
      r.step_time_median /= 0.3;
    }
    return r;
  }, settings, progress);
  const auto summary = engine.run(request, 3600);
  ASSERT_GE(screened.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(screened.begin(), screened.begin() + 4),
            (std::vector<std::string>{"fp32 0", "bf16 0", "bf16 -1", "fp32 -1"}));
  ASSERT_EQ(summary.screening.size(), 2u);
  for (const auto& e : summary.screening) EXPECT_TRUE(e.kept) << e.precision << ": " << e.reason;
  EXPECT_NE(summary.screening[1].reason.find("(its second round: eager bf16 at 200% of eager fp32)"), std::string::npos)
      << summary.screening[1].reason;
  EXPECT_NE(progress.str().find("tune: screen: a second round for bf16"), std::string::npos);
  int bf16_points = 0;
  for (const TableRow& row : gather_tested_models(db, "t.db").rows)
    for (const BatchPoint& point : row.backends.at(0).batch_curve)
      if (point.batch_size == 8 && row.precision == "bf16") {
        ++bf16_points;
        EXPECT_NEAR(point.samples_per_second, 0.3 * 2 * 80 / 1.08, 1e-6);  // round 1's trial, not the repeat
      }
  EXPECT_EQ(bf16_points, 1);
}

// The chosen rate and its runner-up always train again from seed 1, and the one with the lower mean over the two
// seeds (3e-4 here, second from seed 0) is chosen. Their seeds lie up to 2.0% apart (1e-4: 5.00 and 5.10), so the
// 0.7% margin is a tie: the table's cell shows both rates. A runner-up 9% behind on seeds that agree is apart.
TEST_F(EngineFixture, CloseRunnerUpIsCheckedWithASecondSeed) {
  Database db((dir / "t.db").string());
  request.backends = {"eager"};
  settings.learning_rates = {1e-4, 3e-4, 1e-3};
  settings.seed_check = true;
  int seeded = 0;
  auto executor = [&seeded](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    if (s.purpose != TrialPurpose::learning_rate) return r;
    seeded += s.seed == 1;
    const bool low = std::fabs(s.learning_rate - 1e-4) < 1e-12, mid = std::fabs(s.learning_rate - 3e-4) < 1e-12;
    r.score_loss = low ? (s.seed == 0 ? 5.00 : 5.10) : mid ? (s.seed == 0 ? 5.02 : 5.01) : 6.0 + s.learning_rate;
    return r;
  };
  SearchEngine engine(db, executor, settings, progress);
  const auto summary = engine.run(request, 3600);
  ASSERT_TRUE(summary.backends[0].best.has_value());
  EXPECT_EQ(seeded, 2);
  EXPECT_DOUBLE_EQ(summary.backends[0].best->learning_rate, 3e-4);
  EXPECT_NEAR(summary.backends[0].best->lr_score_loss, 5.015, 1e-9);
  EXPECT_NE(summary.backends[0].lr_stop.find("mean loss 5.0500 vs 5.0150 over 2 seeds, 3.0e-04 chosen"),
            std::string::npos) << summary.backends[0].lr_stop;

  const auto table = gather_tested_models(db, "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  const auto& eager = table.rows[0].backends[0];
  ASSERT_TRUE(eager.runner_up().has_value());
  EXPECT_EQ(eager.runner_up()->seeds, 2);
  EXPECT_NEAR(eager.runner_up_margin(), 5.05 / 5.015 - 1, 1e-9);
  ASSERT_TRUE(eager.seed_spread().has_value());
  EXPECT_NEAR(*eager.seed_spread(), 0.10 / 5.05, 1e-9);
  EXPECT_TRUE(eager.rate_tie());
  EXPECT_EQ(learning_rate_cell(eager), "3.0e-04 or 1.0e-04 (12 steps; tie: +0.7% within the seed spread 2.0%)");
  EXPECT_NE(summary.backends[0].lr_stop.find("seed-to-seed spread 1.98%, margin 0.70%: a tie within the seed spread"),
            std::string::npos) << summary.backends[0].lr_stop;

  // A clear runner-up (9% here with 3e-3 from the simulated landscape, whose seeds agree) is checked too: apart.
  Database db2((dir / "t2.db").string());
  settings.learning_rates = {3e-5, 3e-4, 3e-3};
  SearchEngine plain(db2, [](const TrialSpec& s, const std::string&) { return simulated_trial(s); }, settings, progress);
  const auto clear = plain.run(request, 3600);
  EXPECT_NE(clear.backends[0].lr_stop.find("apart beyond the seed spread"), std::string::npos)
      << clear.backends[0].lr_stop;
  const auto apart = gather_tested_models(db2, "t2.db").rows[0].backends[0];
  EXPECT_FALSE(apart.rate_tie());
  EXPECT_NE(learning_rate_cell(apart).find("seed spread 0.0%"), std::string::npos) << learning_rate_cell(apart);
}

// A screened pair's ramp learns from its screening trial, so its first trial is held to the budget like the rest
// (the main job's Inductor ramp had started a 2m50s trial with nothing left); when the budget refuses every size,
// the screening trial's batch is the answer, marked as the budget's.
TEST_F(EngineFixture, ScreenedRampHoldsItsFirstTrialToTheBudget) {
  Database db((dir / "t.db").string());
  request.backends = {"eager", "jit"};
  request.screen = true;
  std::vector<std::string> ran;
  SearchEngine engine(db, [&ran](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    r.wall_seconds = 100;  // slow trials: a 150 s budget affords the screen and little else
    ran.push_back(s.step.backend + " " + to_string(s.purpose) + " " + std::to_string(s.batch_size));
    return r;
  }, settings, progress);
  const auto summary = engine.run(request, 150);
  ASSERT_EQ(summary.screening.size(), 2u);
  for (const auto& b : summary.backends) {
    ASSERT_TRUE(b.best.has_value()) << b.failure;
    EXPECT_EQ(b.best->batch_size, 8) << b.backend;
    EXPECT_NE(b.ramp_stop.find("budget"), std::string::npos) << b.ramp_stop;
    EXPECT_EQ(b.best->stop.batch_limit, BatchLimit::budget);
  }
  for (const auto& r : ran) EXPECT_EQ(r.find("throughput 1"), std::string::npos) << r;
}

// The pick sees every stored trial: batch 8, stored by an earlier search, ran faster than anything the budget-cut
// ramp reached (batch 1), so the search picks it, says so, and searches its rate there; the table shows the same.
TEST_F(EngineFixture, ThePickSeesEveryStoredTrialNotOnlyTheRamps) {
  Database db((dir / "t.db").string());
  request.backends = {"eager"};
  settings.min_batch_size = settings.max_batch_size = 8;
  int calls = 0;
  search(db, &calls);
  settings.min_batch_size = 1;
  settings.max_batch_size = 256;
  SearchEngine engine(db, [](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    r.wall_seconds = 100;  // against a 60 s budget: the ramp's first trial only
    return r;
  }, settings, progress);
  const auto summary = engine.run(request, 60);
  ASSERT_TRUE(summary.backends[0].best.has_value());
  EXPECT_EQ(summary.backends[0].best->batch_size, 8);
  EXPECT_EQ(summary.backends[0].best->stop.batch_limit, BatchLimit::budget);
  EXPECT_NE(progress.str().find("the pick over every stored size is batch 8"), std::string::npos) << progress.str();
  const TestedModelsTable table = gather_tested_models(db, "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].native_result()->best.batch_size, 8);
  EXPECT_EQ(table.rows[0].native_result()->rate_batch_size, 0);  // its rate was searched at 8
}

// Each trial names its study's compile cache for its batch size; the worker writes there (simulated: the folder).
// The rate trials at the chosen batch find the ramp's cache; the size that ran out of memory (64) left none behind.
TEST_F(EngineFixture, TrialsShareTheirShapesCompileCacheAndAFailedFirstOneLeavesNone) {
  std::vector<std::pair<TrialPurpose, bool>> found;  // each trial's purpose, and whether its cache was there
  std::map<int, std::string> caches;
  const auto writes_cache = [&](const TrialSpec& s, const std::string&) {
    EXPECT_NE(s.compile_cache_dir.find("/compile-cache/batch-" + std::to_string(s.batch_size)), std::string::npos);
    found.emplace_back(s.purpose, std::filesystem::exists(s.compile_cache_dir));
    caches[s.batch_size] = s.compile_cache_dir;
    std::filesystem::create_directories(s.compile_cache_dir);
    return simulated_trial(s);
  };
  request.backends = {"eager"};
  Database db((dir / "t.db").string());
  const auto summary = SearchEngine(db, writes_cache, settings, progress).run(request, 3600);
  ASSERT_TRUE(summary.backends[0].best.has_value());
  ASSERT_TRUE(caches.count(64));
  EXPECT_FALSE(std::filesystem::exists(caches[64])) << "the out-of-memory trial started it";
  EXPECT_TRUE(std::filesystem::exists(caches[summary.backends[0].best->batch_size]));
  int rate_trials = 0;
  for (const auto& [purpose, warm] : found) {
    if (purpose != TrialPurpose::learning_rate) continue;
    ++rate_trials;
    EXPECT_TRUE(warm) << "rate trial " << rate_trials;
  }
  EXPECT_GT(rate_trials, 0);
}

// A model that learns nothing, whose loss falls with the rate by a hair (noise): the rate search stays within its
// list, the best left at its smallest rate marked below, and says why it did not go below; the table calls the rate
// not separated. Before, each step down "improved" and the search followed it to the bound 1e-7.
TEST_F(EngineFixture, ARateThatHasNotLearnedIsNotSearchedBelowTheList) {
  std::vector<double> rates;
  const auto at_chance = [&rates](const TrialSpec& s, const std::string&) {
    TrialResult r = simulated_trial(s);
    if (s.purpose != TrialPurpose::learning_rate) return r;
    rates.push_back(s.learning_rate);
    r.losses = {10.0, 9.99};
    r.score_loss = 9.9 + 1e-3 * std::log10(s.learning_rate);
    return r;
  };
  request.backends = {"eager"};
  settings.lr_train_steps = 12;
  settings.lr_max_train_steps = 12;
  Database db((dir / "t.db").string());
  const auto summary = SearchEngine(db, at_chance, settings, progress).run(request, 3600);
  ASSERT_TRUE(summary.backends[0].best.has_value()) << summary.backends[0].failure;
  ASSERT_FALSE(rates.empty());
  EXPECT_GE(*std::min_element(rates.begin(), rates.end()), 1e-5 * (1 - 1e-9));
  EXPECT_DOUBLE_EQ(summary.backends[0].best->learning_rate, 1e-5);
  EXPECT_NE(summary.backends[0].lr_stop.find("not searched past: the model had not learned enough to rank rates"),
            std::string::npos) << summary.backends[0].lr_stop;
  const auto table = gather_tested_models(db, "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  const BackendResult& eager = *table.rows[0].native_result();
  EXPECT_FALSE(eager.rates_separated());
  EXPECT_EQ(learning_rate_cell(eager).rfind("≤1.0e-05", 0), 0u) << learning_rate_cell(eager);
}

// A horizon that does not rank: the simulated model learns nothing in under 48 steps (every rate's loss within 2%
// of its first step's 10.0), then 50% below it. The search doubles the horizon (12, 24, 48) and runs the rates
// again each time, says so, and ranks them on the 48-step runs alone; jit's transferred rate is checked at 48 from
// the start. Capped at 24 steps, the search says the rates did not separate, and so does the table.
TEST_F(EngineFixture, AHorizonThatDoesNotRankTheRatesIsLengthened) {
  const auto learns_late = [](std::map<std::string, std::vector<int>>* steps) {
    return [steps](const TrialSpec& s, const std::string&) {
      TrialResult r = simulated_trial(s);
      if (s.purpose != TrialPurpose::learning_rate) return r;
      (*steps)[s.step.backend].push_back(s.train_steps);
      r.losses = {10.0, 9.9};
      r.score_loss = (s.train_steps >= 48 ? 0 : 4.8) + r.score_loss;  // 5 + distance from 3e-4: 9.8+ before 48
      return r;
    };
  };
  request.backends = {"eager", "jit"};
  settings.lr_train_steps = 12;
  settings.lr_max_train_steps = 96;
  std::map<std::string, std::vector<int>> steps;
  Database db((dir / "t.db").string());
  const auto summary = SearchEngine(db, learns_late(&steps), settings, progress).run(request, 3600);
  ASSERT_TRUE(summary.backends[0].best.has_value()) << summary.backends[0].failure;
  EXPECT_EQ(summary.backends[0].best->stop.lr_horizon_steps, 48);
  EXPECT_DOUBLE_EQ(summary.backends[0].best->learning_rate, 3e-4);
  EXPECT_EQ(summary.backends[0].lr_stop.rfind("horizon lengthened from 12 to 48 steps", 0), 0u)
      << summary.backends[0].lr_stop;
  EXPECT_NE(progress.str().find("the rates again at 24"), std::string::npos) << progress.str();
  EXPECT_EQ(std::count(steps["eager"].begin(), steps["eager"].end(), 12), 4);
  for (int s : steps["jit"]) EXPECT_EQ(s, 48);
  const auto table = gather_tested_models(db, "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  const BackendResult& eager = *table.rows[0].native_result();
  for (const auto& point : eager.lr_curve) EXPECT_EQ(point.train_steps, 48) << point.learning_rate;
  EXPECT_TRUE(eager.rates_separated());
  EXPECT_EQ(learning_rate_cell(eager).rfind("3.0e-04 (48 steps, lengthened past 12", 0), 0u) << learning_rate_cell(eager);

  settings.lr_max_train_steps = 24;
  std::map<std::string, std::vector<int>> capped_steps;
  Database capped_db((dir / "capped.db").string());
  const auto capped = SearchEngine(capped_db, learns_late(&capped_steps), settings, progress).run(request, 3600);
  ASSERT_TRUE(capped.backends[0].best.has_value());
  EXPECT_EQ(capped.backends[0].best->stop.lr_horizon_steps, 24);
  EXPECT_NE(capped.backends[0].lr_stop.find("rates not separated: the best learned 2.0% of the untrained loss in 24 "
                                            "steps (lr_max_train_steps)"), std::string::npos)
      << capped.backends[0].lr_stop;
  const TestedModelsTable capped_table = gather_tested_models(capped_db, "capped.db");
  const BackendResult& unranked = *capped_table.rows[0].native_result();
  EXPECT_FALSE(unranked.rates_separated());
  EXPECT_NE(learning_rate_cell(unranked).find("not separated yet"), std::string::npos) << learning_rate_cell(unranked);
}
