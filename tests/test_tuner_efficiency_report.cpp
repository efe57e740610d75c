// The tuner efficiency reports (tools/tuner_efficiency_run.h, tools/tuner_efficiency_summary.h) on a small work
// folder made here: two grid runs (the ground truth), the default strategy and a run that failed, with the judge's
// clock from the grid stores' throughput trials and clock.txt; then the summary over two seeds of it.
#include <gtest/gtest.h>

#include <sstream>

#include "render_report.h"
#include "store/database.h"
#include "test_helpers.h"
#include "tools/tuner_efficiency_summary.h"

using namespace tune;
using tune::testing::has;
using tune::testing::render;
using tune::testing::temp_dir;
using tune::testing::write_file;
namespace fs = std::filesystem;

namespace {

OrderedJson grid_trial(int batch, double lr, int steps, double seconds) {
  return {{"batch_size", batch}, {"learning_rate", lr}, {"reaches_target", steps > 0}, {"seconds_to_target", seconds},
          {"status", "ok"}, {"steps_to_target", steps}};
}

// The grid over batch 4, 8 x lr 1e-3, 2e-3: fastest on its own clock 8 @ 1e-3 (0.25 s, 20 steps); 8 @ 2e-3 never.
OrderedJson grid_search(double trial_seconds) {
  const OrderedJson trials = {grid_trial(4, 1e-3, 40, 0.40), grid_trial(4, 2e-3, 30, 0.30), grid_trial(8, 1e-3, 20, 0.25),
                              grid_trial(8, 2e-3, 0, 0)};
  return {{"objective", "time-to-loss"},
          {"searches", {{{"batch_tuner", "grid"}, {"lr_tuner", "grid"}, {"trials_run", 4}, {"trials_reused", 0},
                         {"trial_seconds", trial_seconds}, {"lr_stop", "grid done"},
                         {"time_to_loss", {{"target_loss", 5.0}, {"target_source", "the reference config's score"},
                                           {"target_samples", 256}, {"best", trials[2]}, {"trials", trials}}}}}}};
}

// A grid run's store: its throughput trials' median step times feed the judge's clock.
void write_grid_store(const fs::path& path, double batch4_seconds, double batch8_seconds) {
  Database db(path.string());
  const int64_t id = db.ensure_study(make_study_key("bert-tiny", "h", Instance{}, "2.5", "eager", "fp32", 128));
  for (const auto& [batch, seconds] : {std::pair{4, batch4_seconds}, std::pair{8, batch8_seconds}}) {
    TrialSpec spec;
    spec.purpose = TrialPurpose::throughput;
    spec.batch_size = batch;
    TrialResult result;
    result.status = TrialStatus::ok;
    result.step_time_median = seconds;
    db.record_trial(id, spec, result, "d");
  }
}

// The judge's clock: batch 4 {0.010, 0.011, 0.012} -> 0.011, batch 8 {0.014, 0.013, 0.015} -> 0.014, so the grid's
// best on it is 8 @ 1e-3 (20 x 0.014 = 0.28 s). The default chose 4 @ 2e-3: 30 steps x 0.011 = 0.33 s, +17.9%.
fs::path write_work_folder(const fs::path& work) {
  write_file(work / "times.txt", "grid@1 100 110\ndefault@1 110 115\ngrid@2 115 125\nasha@1 125 130\n");
  write_file(work / "load.txt", "101 1.00 0.50 0.20\n105 2.00 0.60 0.20\n\n112 0.50 0.60 0.20\n120 1.50 0.70 0.20\n");
  write_file(work / "clock.txt", "4 0.012\n8 0.015\n");
  write_file(work / "grid@1.json", grid_search(40.0).dump());
  write_file(work / "grid@2.json", grid_search(44.0).dump());
  write_grid_store(work / "grid@1.db", 0.010, 0.014);
  write_grid_store(work / "grid@2.db", 0.011, 0.013);
  const OrderedJson choice = {{"batch_size", 4}, {"learning_rate", 2e-3}, {"seconds_to_target", 0.32}, {"steps_to_target", 30}};
  const OrderedJson default_search = {
      {"objective", "time-to-loss"},
      {"searches", {{{"batch_tuner", "batch_ramp"}, {"lr_tuner", "lr_sweep"}, {"trials_run", 2}, {"trials_reused", 1},
                     {"trial_seconds", 6.0}, {"lr_stop", "ladder ended"},
                     {"time_to_loss", {{"target_loss", 5.0}, {"best", choice}, {"trials", OrderedJson::array()}}}}}}};
  write_file(work / "default@1.json", default_search.dump());
  write_file(work / "asha@1.json", "");  // the run failed before writing its JSON: its log says why
  write_file(work / "asha@1.log", "tune: model bert-tiny\ntune: failed: out of memory\n\n");
  return work;
}

TunerEfficiencyRun run_fixture(const fs::path& work, int seed) {
  TunerEfficiencyRunSource source{write_work_folder(work).string(), "/repo/configs/tuner-efficiency.yaml", "bert-tiny",
                                  seed, "scripts/tuner-efficiency", "2026-12-02 16:24 UTC",
                                  {{"cpu", "Test CPU"}, {"cores", 2}, {"host", "vm"}, {"commit", "abc1234"}}};
  return tuner_efficiency_run(source);
}

}  // namespace

TEST(TunerEfficiencyReporters, RunJsonJudgesEveryStrategyOnTheJudgesClock) {
  const auto json = OrderedJson::parse(render(tuner_efficiency_run_reporters(), "json", run_fixture(temp_dir("te"), 0)));
  EXPECT_EQ(json["schema_version"], 2);
  EXPECT_EQ(json["machine"]["cpu"], "Test CPU");
  EXPECT_EQ(json["clock_step_seconds"].dump(), R"({"4":0.011,"8":0.014})");
  EXPECT_EQ(json["clock_samples"].dump(), R"({"4":3,"8":3})");
  EXPECT_EQ(json["judged_best"]["batch_size"], 8);
  EXPECT_NEAR(json["judged_best"]["seconds_on_clock"].get<double>(), 0.28, 1e-12);
  EXPECT_EQ(json["grid_cost_seconds"], 42.0);  // the median of the grid runs' costs
  ASSERT_EQ(json["runs"].size(), 4u);
  const auto& chosen = json["runs"][1];
  EXPECT_EQ(chosen["strategy"], "default");
  EXPECT_EQ(chosen["trials"], 3);
  EXPECT_NEAR(chosen["regret"].get<double>(), 0.32 / 0.25 - 1, 1e-12);
  EXPECT_NEAR(chosen["regret_on_grid_figures"].get<double>(), 0.30 / 0.25 - 1, 1e-12);
  EXPECT_NEAR(chosen["judged_regret"].get<double>(), 0.33 / 0.28 - 1, 1e-12);
  EXPECT_NEAR(chosen["cost_share"].get<double>(), 6.0 / 42.0, 1e-12);
  EXPECT_NEAR(chosen["load_mean"].get<double>(), 0.5, 1e-12);  // the one sample within its 110..115
  EXPECT_EQ(chosen["meets_goal"], false);
  const auto& failed = json["runs"][3];
  EXPECT_EQ(failed["stop"], "failed: tune: failed: out of memory");
  EXPECT_TRUE(failed["judged_regret"].is_null());
  EXPECT_FALSE(failed.contains("batch_size"));
  EXPECT_TRUE(json["runs"][0]["meets_goal"].is_null());  // the grid is the yardstick, not a contender
  const auto& strategies = json["strategies"];
  ASSERT_EQ(strategies.size(), 3u);
  EXPECT_EQ(strategies[0]["strategy"], "grid");
  EXPECT_EQ(strategies[0]["runs"], 2);
  EXPECT_EQ(strategies[1]["batch_tuner"], "batch_ramp");
  EXPECT_EQ(strategies[2]["batch_tuner"], "?");  // the failed run did not say
  EXPECT_TRUE(strategies[2]["judged_regret_median"].is_null());
}

TEST(TunerEfficiencyReporters, RunMarkdownHasTheStrategiesEveryRunAndTheGrid) {
  const auto report = run_fixture(temp_dir("te"), 0);
  std::ostringstream out;
  make_tuner_efficiency_run_markdown("/repo")->write(out, report);
  const std::string md = out.str();
  EXPECT_TRUE(has(md, "# Tuner efficiency: bert-tiny, objective time-to-loss\n\nReproduce: `scripts/tuner-efficiency` "
                      "(seed 0, settings `configs/tuner-efficiency.yaml`); 2026-12-02 16:24 UTC, commit abc1234, Test CPU "
                      "(2 cores).")) << md;
  EXPECT_TRUE(has(md, "fastest at batch 8, lr 1.00e-03: 0.250 s (20 steps) on its own clock.")) << md;
  EXPECT_TRUE(has(md, "over 3-3 throughput trials")) << md;
  EXPECT_TRUE(has(md, "Judge's clock, median step time per batch: 4: 11.00 ms, 8: 14.00 ms.\n")) << md;
  EXPECT_TRUE(has(md, "| default | batch_ramp | lr_sweep | 4 @ 2.00e-03 | +17.9% (+17.9%) | 3 | 6.0 | 14% (14-14%) | no | 0 of 1 |\n")) << md;
  EXPECT_TRUE(has(md, "| asha | ? | ? | none | – (–) | 0 | 0.0 | 0% (0-0%) | no | 0 of 1 |\n")) << md;
  EXPECT_TRUE(has(md, "| default | 1 | 4 | 2.00e-03 | 0.320 | +28.0% | +17.9% | 3 | 6.0 | 14% | no | 0.5 / 0.5 |\n")) << md;
  EXPECT_TRUE(has(md, "| asha | 1 | – | – | – | – | – | 0 | 0.0 | 0% | no | nan / nan |\n")) << md;
  EXPECT_TRUE(has(md, "| batch | 1.0e-03 | 2.0e-03 |\n|---|---|---|\n| 4 | 0.40 | 0.30 |\n| 8 | 0.25 | – |\n")) << md;
}

TEST(TunerEfficiencyReporters, SummaryOverSeedsHasMediansTheLadderAndTheFloors) {
  const auto dir = temp_dir("te-summary");
  for (int seed : {0, 1}) {
    const auto run = run_fixture(dir / ("work-" + std::to_string(seed)), seed);
    const std::string prefix = (dir / "reports" / ("bert-tiny-s" + std::to_string(seed))).string();
    write_file(prefix + ".json", "");
    write_report_file(prefix + ".json", *pick_reporter("run", "json", tuner_efficiency_run_reporters()), run);
    write_file(prefix + "-replay.md", "| strategy | ladder start batch | batch | lr | s to target | regret | trials | cost s | cost / grid |\n"
                                      "| lr_sweep | 4 | 4 | 2.00e-03 | 0.33 | +" + std::to_string(10 + seed) + ".0% | 3 | 6 | 14% |\n"
                                      "| asha | 8 | 8 | 1.00e-03 | 0.28 | +0.0% | 3 | 6 | 14% |\n");
  }
  const TunerEfficiencySummary summary = tuner_efficiency_summary((dir / "reports").string());
  const auto json = OrderedJson::parse(render(tuner_efficiency_summary_reporters(), "json", summary));
  EXPECT_EQ(json["schema"], "tune-tuner-efficiency-summary");
  EXPECT_EQ(json["schema_version"], 2);
  EXPECT_EQ(json["machine"], "Test CPU (2 cores)");
  EXPECT_EQ(json["lr_tuner"], "lr_sweep");  // the default strategy's
  ASSERT_EQ(json["runs"].size(), 2u);
  EXPECT_EQ(json["runs"][0]["grid_best_at_edge"], "largest batch, lowest rate");
  EXPECT_EQ(json["runs"][1]["ladder_regret_by_start_batch"].dump(), R"({"4":0.11})");
  EXPECT_EQ(json["runs"][0]["noise_floor"]["grid_runs"], 2);
  EXPECT_EQ(json["medians"][0]["strategy"], "default");
  EXPECT_EQ(json["medians"][0]["over"], "bert-tiny");
  EXPECT_EQ(json["medians"][1]["over"], "all families and seeds");
  EXPECT_EQ(json["medians"][1]["runs"], 2);
  EXPECT_NEAR(json["medians"][1]["regret_median"].get<double>(), 0.33 / 0.28 - 1, 1e-12);
  // default's rate regret at its batch 4: its 30 steps are the grid's fewest there.
  EXPECT_EQ(json["medians"][1]["rate_regret_median"], 0.0);
  ASSERT_EQ(json["seed_floor"].size(), 2u);
  EXPECT_EQ(json["seed_floor"][0]["regret"], 0.0);
  EXPECT_EQ(json["seed_floor_median"], 0.0);
  const std::string md = render(tuner_efficiency_summary_reporters(), "md", summary);
  EXPECT_TRUE(has(md, "# Tuner efficiency: time-to-loss over tiny families and seeds\n\nReproduce: `scripts/tuner-efficiency`; "
                      "2026-12-02 16:24 UTC, commit abc1234, Test CPU (2 cores).")) << md;
  EXPECT_TRUE(has(md, "exhaustive grid over batch 4..8 and rates 1e-03, 2e-03 (past")) << md;
  EXPECT_TRUE(has(md, "| bert-tiny | 1 | 5.0000 | 8, 1e-03, 20 | largest batch, lowest rate | default | 4 @ 2.00e-03 | +17.9% | 14% | no |\n")) << md;
  EXPECT_TRUE(has(md, "| default | all families and seeds | 2 | +17.9% | +17.9% | 14% | no | +0.0% |\n")) << md;
  EXPECT_TRUE(has(md, "| family | seed | start 4 |\n|---|---|---|\n| bert-tiny | 0 | +10.0% |\n| bert-tiny | 1 | +11.0% |\n"
                      "| median | | +10.5% |\n")) << md;
  EXPECT_TRUE(has(md, "bert-tiny seed 0, 2 runs: the best's time on its own clock 0.250 s, 0.250 s (0.0% apart), the grid's "
                      "trial time 40 s, 44 s (10.0% apart).")) << md;
  EXPECT_TRUE(has(md, "| bert-tiny | 0 | 8 @ 1e-03 | 1: +0.0% |\n| bert-tiny | 1 | 8 @ 1e-03 | 0: +0.0% |\n| median | | | +0.0% |\n")) << md;
}

TEST(TunerEfficiencyReporters, AWorkFolderWithoutAGridRunIsAClearError) {
  const auto work = temp_dir("te");
  write_file(work / "times.txt", "default@1 110 115\n");
  write_file(work / "default@1.json", "");
  write_file(work / "default@1.log", "tune: failed\n");
  const std::string message = tune::testing::error_of([&] {
    tuner_efficiency_run({work.string(), "s.yaml", "bert-tiny", 0, "c", "d", OrderedJson::object()});
  });
  EXPECT_TRUE(has(message, (work / "times.txt").string()) && has(message, "no grid run")) << message;
}
