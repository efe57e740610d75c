// The reporter interface (report/reporter.h) and the reporters of the search result, the reliability report, the
// learning-rate horizon and the side-by-side table: each format renders a small fixture, its cells and schema
// checked. (The tested-models table's are in test_table_writers.cpp, the regression report's in
// test_regression_report.cpp, the tuner efficiency reports' in test_tuner_efficiency_report.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/search_reporters.h"
#include "report/table_reporters.h"
#include "render_report.h"
#include "table_fixture.h"
#include "test_helpers.h"
#include "tools/faults/reliability_report.h"
#include "tools/lr_horizon_report.h"
#include "tools/side_by_side_report.h"

using namespace tune;
using tune::testing::error_of;
using tune::testing::has;
using tune::testing::render;
using tune::testing::temp_dir;
using tune::testing::write_file;

TEST(Reporter, PickByFormatAndAnUnknownFormatIsAClearError) {
  EXPECT_EQ(reporter_formats(table_reporters()), (std::vector<std::string>{"md", "csv", "json", "html"}));
  EXPECT_EQ(pick_reporter("table", "csv", table_reporters())->format(), "csv");
  const std::string message = error_of([] { make_search_reporter("yaml"); });
  EXPECT_TRUE(has(message, "search report format 'yaml'")) << message;
  EXPECT_TRUE(has(message, "expected one of md, json")) << message;
}

TEST(Reporter, AReportFileThatCannotBeWrittenIsAClearError) {
  const std::string path = (temp_dir("reporter") / "no-such-folder" / "r.md").string();
  const std::string message =
      error_of([&] { write_report_file(path, *make_table_markdown_reporter(), TestedModelsTable{}); });
  EXPECT_TRUE(has(message, "'" + path + "'")) << message;
}

namespace {

// A two-stage search of bert-tiny's eager and jit (the table fixture's rows), eager's screen verdict kept.
SearchReport search_fixture() {
  const std::string db_path = (temp_dir("search") / "t.db").string();
  tune::testing::write_table_fixture(db_path);
  const Database db(db_path);
  SearchReport r{"bert-tiny", "cpu-2", "batch_ramp", "lr_sweep", {}, gather_tested_models(db, "fixture.db"), {}};
  auto& rows = r.table.rows;  // bert-tiny's rows: native eager beside the faster jit
  rows.erase(std::remove_if(rows.begin(), rows.end(), [](const TableRow& row) { return row.model != "bert-tiny"; }),
             rows.end());
  r.summary.objective = "two-stage";
  r.summary.budget_seconds = 600;
  r.summary.elapsed_seconds = 95;
  BackendOutcome eager;
  eager.backend = "eager", eager.precision = "fp32", eager.study_id = 7;
  eager.best = BestConfig{};
  eager.best->stop.batch_limit = BatchLimit::memory;
  eager.ramp_stop = "batch 16 ran out of memory";
  eager.lr_stop = "the lowest loss is inside the rates";
  eager.trials_run = 5, eager.trials_reused = 2, eager.trial_seconds = 41.5, eager.lr_horizon_steps = 12;
  BackendOutcome jit;
  jit.backend = "jit", jit.precision = "fp32", jit.study_id = 8;
  jit.failure = "compile_error: no graph";
  r.summary.backends = {eager, jit};
  ScreenEntry screened;
  screened.backend = "eager", screened.precision = "fp32", screened.batch_size = 8;
  screened.result.status = TrialStatus::ok, screened.result.samples_per_second = 120;
  screened.reason = "kept: the fastest";
  r.summary.screening = {screened};
  return r;
}

}  // namespace

TEST(SearchReporters, MarkdownStatesTheSearchItsRowsAndEachOutcome) {
  SearchReport report = search_fixture();
  std::string md = render(search_reporters(), "md", report);
  EXPECT_TRUE(has(md, "\n## tune: bert-tiny on cpu-2 (searched in 1m 35s of a 10m 00s budget)\n\n")) << md;
  EXPECT_TRUE(has(md, "objective: two-stage: batch size by throughput")) << md;
  EXPECT_TRUE(has(md, "| bert-tiny |")) << md;  // the table's row
  EXPECT_TRUE(has(md, "- screen: eager fp32: kept: the fastest\n")) << md;
  EXPECT_TRUE(has(md, "- eager fp32: batch ramp ended (batch 16 ran out of memory); learning rates: the lowest loss is "
                      "inside the rates; 5 trials run, 2 reused from the store\n")) << md;
  EXPECT_TRUE(has(md, "- jit fp32: no result: compile_error: no graph; 0 trials run")) << md;
  EXPECT_FALSE(has(md, "-step job")) << md;
  report.job.steps = 5000;
  md = render(search_reporters(), "md", report);
  EXPECT_TRUE(has(md, "- for a 5000-step job (fp32): ")) << md;
}

TEST(SearchReporters, JsonCarriesSchemaRowsSearchesAndScreen) {
  const auto json = nlohmann::json::parse(render(search_reporters(), "json", search_fixture()));
  EXPECT_EQ(json["schema"], "tune-search");
  EXPECT_EQ(json["schema_version"], kSearchJsonSchemaVersion);
  ASSERT_FALSE(json["rows"].empty());
  for (const auto& row : json["rows"]) EXPECT_EQ(row["model"], "bert-tiny");
  EXPECT_EQ(json["budget_seconds"], 600);
  ASSERT_EQ(json["searches"].size(), 2u);
  EXPECT_EQ(json["searches"][0]["batch_tuner"], "batch_ramp");
  EXPECT_EQ(json["searches"][0]["lr_tuner"], "lr_sweep");
  EXPECT_EQ(json["searches"][0]["batch_limit"], "memory");
  EXPECT_EQ(json["searches"][0]["trial_seconds"], 41.5);
  EXPECT_FALSE(json["searches"][1].contains("batch_limit"));  // no best config
  EXPECT_EQ(json["searches"][1]["failure"], "compile_error: no graph");
  EXPECT_EQ(json["screening"][0]["samples_per_second"], 120);
  EXPECT_EQ(json["screening"][0]["kept"], true);
}

namespace {

using faults::ReliabilityReport;

ReliabilityReport reliability_fixture() {
  ReliabilityReport r;
  r.about = {"2026-12-03 17:21 UTC", "x86_64 6.1, 2 CPUs", "0.1.0", 20, 156};
  r.faults = {{"tune killed (kill -9), then rerun", "rerun exits 0 | reuses", 20, 20, 0, 0, "20 kills"}};
  r.bad_inputs = {{"sequence length 0", "--seq-len 0", "--seq-len 0", 2, "tune: error: --seq-len 0: expected at least 1", false},
                  {"a quiet failure", "--budget x", "'x'", 1, "tune: failed", true}};
  return r;
}

faults::FuzzFigures fuzz_fixture() {
  faults::FuzzFigures f{"2026-12-03 16:40 UTC", 20, 1, {}};
  f.targets = {{"trial_json", 20, 183211, 1421, 5230, "310/61Kb", 0}, {"model_yaml", 20, std::nullopt, 880, 2301, "95/9Kb", 0}};
  return f;
}

}  // namespace

TEST(ReliabilityReporters, MarkdownHasEveryRowAndNoFuzzingSectionWithoutFigures) {
  const std::string md = render(faults::reliability_reporters(), "md", reliability_fixture());
  EXPECT_TRUE(has(md, "# Reliability: faults survived, bad inputs tried\n\nMade by `scripts/faults` on 2026-12-03 17:21 UTC "
                      "on x86_64 6.1, 2 CPUs (156 s), tune 0.1.0.")) << md;
  EXPECT_TRUE(has(md, "| tune killed (kill -9), then rerun | 20 | 20 | 0 | 0 | rerun exits 0 \\| reuses | 20 kills |\n")) << md;
  EXPECT_TRUE(has(md, "| sequence length 0 | `--seq-len 0` | 2 | tune: error: --seq-len 0: expected at least 1 | yes | no |\n")) << md;
  EXPECT_TRUE(has(md, "| a quiet failure | `--budget x` | 1 | tune: failed | NO | YES |\n")) << md;
  EXPECT_FALSE(has(md, "## Fuzzing")) << md;
}

TEST(ReliabilityReporters, FuzzingSectionSaysWhenAndForHowLongPerTarget) {
  ReliabilityReport report = reliability_fixture();
  report.fuzzing = fuzz_fixture();
  const std::string md = render(faults::reliability_reporters(), "md", report);
  EXPECT_TRUE(has(md, "\n## Fuzzing\n\nMade by `scripts/sanitize` on 2026-12-03 16:40 UTC")) << md;
  EXPECT_TRUE(has(md, "ran 20 s on its seed corpus")) << md;
  EXPECT_TRUE(has(md, "| target | seconds | executions | coverage (edges) | features | corpus | crashes |\n")) << md;
  EXPECT_TRUE(has(md, "| trial_json | 20 | 183211 | 1421 | 5230 | 310/61Kb | 0 |\n")) << md;
  EXPECT_TRUE(has(md, "| model_yaml | 20 | – | 880 | 2301 | 95/9Kb | 0 |\n")) << md;  // a figure the log lacked
}

TEST(ReliabilityReporters, JsonCarriesSchemaRowsAndTheFuzzingFigures) {
  ReliabilityReport report = reliability_fixture();
  auto json = nlohmann::json::parse(render(faults::reliability_reporters(), "json", report));
  EXPECT_EQ(json["schema_version"], faults::kReliabilitySchemaVersion);
  EXPECT_EQ(json["about"]["wall_seconds"], 156);
  EXPECT_EQ(json["faults"][0]["committed_trials_lost"], 0);
  EXPECT_EQ(json["bad_inputs"][0]["value_quoted"], true);
  EXPECT_EQ(json["bad_inputs"][0]["ok"], true);
  EXPECT_EQ(json["bad_inputs"][1]["ok"], false);
  EXPECT_TRUE(json["fuzzing"].is_null());
  report.fuzzing = fuzz_fixture();
  json = nlohmann::json::parse(render(faults::reliability_reporters(), "json", report));
  EXPECT_EQ(json["fuzzing"]["date"], "2026-12-03 16:40 UTC");
  EXPECT_EQ(json["fuzzing"]["seconds_per_target"], 20);
  EXPECT_EQ(json["fuzzing"]["targets"][0]["executions"], 183211);
  EXPECT_EQ(json["fuzzing"]["targets"][0]["crashes"], 0);
  EXPECT_TRUE(json["fuzzing"]["targets"][1]["executions"].is_null());
}

// scripts/sanitize's fuzz-summary.json, as it writes it; another document is refused naming the file.
TEST(ReliabilityReporters, FuzzSummaryIsReadAndABadOneNamed) {
  const auto dir = temp_dir("fuzz");
  const std::string good = write_file(dir / "fuzz-summary.json", R"({"schema": "tune-fuzz-summary", "schema_version": 1,
    "date": "2026-12-03 16:40 UTC", "seconds_per_target": 20, "seed": 1, "targets": [
    {"target": "sweep_file", "seconds": 20, "executions": 9120, "edges": 610, "features": 1800, "corpus": "41/3Kb",
     "crashes": 1}, {"target": "vocab_files", "seconds": 20, "executions": null, "edges": null, "features": null,
     "corpus": "", "crashes": 0}]})");
  const faults::FuzzFigures f = faults::read_fuzz_summary(good);
  EXPECT_EQ(f.date, "2026-12-03 16:40 UTC");
  EXPECT_EQ(f.seconds_per_target, 20);
  ASSERT_EQ(f.targets.size(), 2u);
  EXPECT_EQ(f.targets[0].executions, 9120);
  EXPECT_EQ(f.targets[0].crashes, 1);
  EXPECT_FALSE(f.targets[1].edges.has_value());
  const std::string other = write_file(dir / "other.json", R"({"schema": "tune-search", "schema_version": 7})");
  std::string message = error_of([&] { faults::read_fuzz_summary(other); });
  EXPECT_TRUE(has(message, "'" + other + "'") && has(message, "tune-fuzz-summary")) << message;
  const std::string missing = (dir / "none.json").string();
  message = error_of([&] { faults::read_fuzz_summary(missing); });
  EXPECT_TRUE(has(message, "'" + missing + "'")) << message;
}

namespace {

LrHorizonReport lr_horizon_fixture() {
  LrHorizonReport r;
  r.settings.families = {"bert-tiny"};
  r.settings.rates = {1e-3, 3e-3, 1e-2};
  r.settings.horizons = {12};
  r.settings.seeds = {0, 1};
  r.settings.schedule = "cosine";
  r.settings.warmup_share = 0.1;
  // Seed 0: H ranks 3e-3 first, 10 H 1e-3 (regret 2%); seed 1: both rank 3e-3 first; 1e-2 diverges at 10 H.
  r.comparisons = {{"bert-tiny", 0, 12, {5.0, 4.0, 6.0}, {3.0, 3.06, INFINITY}},
                   {"bert-tiny", 1, 12, {5.1, 4.1, 6.1}, {3.2, 3.1, INFINITY}}};
  for (auto& c : r.comparisons) rank_rates(r.settings, c);
  return r;
}

}  // namespace

TEST(LrHorizonReporters, MarkdownHasEachRunAndEachHorizon) {
  const std::string md = render(lr_horizon_reporters(), "md", lr_horizon_fixture());
  EXPECT_TRUE(has(md, "Schedule cosine (warm-up 10% of each run), batch 8, seq 32; reference runs 10x the horizon.\n")) << md;
  EXPECT_TRUE(has(md, "| bert-tiny | 0    | 12        | 0.33                   | 3.0e-03   | 1.0e-03     | +2.00%")) << md;
  EXPECT_TRUE(has(md, "| bert-tiny | 1    | 12        | 1.00                   | 3.0e-03   | 3.0e-03     | +0.00%")) << md;
  EXPECT_TRUE(has(md, "| 12        | 0.67       | 0.33       | +1.00%        | +2.00%")) << md;
}

TEST(LrHorizonReporters, JsonCarriesSchemaSettingsAndEveryScore) {
  const auto json = nlohmann::json::parse(render(lr_horizon_reporters(), "json", lr_horizon_fixture()));
  EXPECT_EQ(json["schema"], "tune-lr-horizon");
  EXPECT_EQ(json["schema_version"], 1);
  EXPECT_EQ(json["schedule"], "cosine");
  EXPECT_EQ(json["rates"].size(), 3u);
  ASSERT_EQ(json["runs"].size(), 2u);
  EXPECT_EQ(json["runs"][0]["chosen_rate"], 3e-3);
  EXPECT_EQ(json["runs"][0]["best_rate"], 1e-3);
  EXPECT_NEAR(json["runs"][0]["regret"].get<double>(), 0.02, 1e-12);
  EXPECT_TRUE(json["runs"][0]["long_scores"][2].is_null());  // a diverged run's inf
}

namespace {

nlohmann::json trial(const std::string& purpose, nlohmann::json result) {
  return {{"spec", {{"purpose", purpose}}}, {"result", std::move(result)}};
}

nlohmann::json throughput(double step_time, double overhead) {
  return {{"status", "ok"}, {"step_time_median", step_time}, {"step_time_ci_low", step_time - 0.1},
          {"step_time_ci_high", step_time + 0.1}, {"samples_per_second", 8 / step_time}, {"compile_seconds", 2.0},
          {"compile_overhead_seconds", overhead}, {"peak_memory_bytes", 3LL << 30}};
}

nlohmann::json losses(double first, double last) { return {{"status", "ok"}, {"losses", {first, 9.5, last}}}; }

nlohmann::json study(const std::string& backend, int seq_len, nlohmann::json trials, const std::string& precision = "fp32") {
  return {{"model", "gpt2"}, {"precision", precision}, {"backend", backend}, {"seq_len", seq_len}, {"trials", trials}};
}

// gpt2 at fp32: C++ eager 4 s/step, jit faster (parts of its compile named), inductor slower than eager but faster
// than HF eager, HF eager's loss off by 5%; a jit study at another sequence length is not the workload's, and a
// bf16 study without trials has no row.
nlohmann::json side_by_side_export() {
  nlohmann::json jit = throughput(3.0, 10.0);
  jit["compile_parts"] = {{"graph_trace", 1.2}, {"fuse", 0.4}};
  nlohmann::json failed = {{"status", "compile_error"}, {"error_message", "a|b"}};
  return {{"studies",
           {study("eager", 128, {trial("throughput", throughput(4.0, 0.5)), trial("learning_rate", losses(10.0, 8.0))}),
            study("jit", 128, {trial("throughput", jit), trial("learning_rate", losses(10.0, 8.08))}),
            study("inductor", 128, {trial("throughput", failed), trial("throughput", throughput(4.5, 90.0))}),
            study("hf-eager", 128, {trial("throughput", throughput(5.0, 1.0)), trial("learning_rate", losses(10.1, 8.4))}),
            study("jit", 64, {trial("throughput", failed)}), study("jit", 128, nlohmann::json::array(), "bf16")}}};
}

}  // namespace

TEST(SideBySideReporters, MarkdownRowsHaveTheBreakEvenAndLossAgreement) {
  SideBySideStore store = side_by_side_from_export(side_by_side_export());
  std::string md = render(side_by_side_reporters(), "md", store);
  EXPECT_TRUE(has(md, "| model | precision | backend | s/step (95% CI) | samples/s |")) << md;
  EXPECT_TRUE(has(md, "| gpt2 | fp32 | eager | 4.00 (3.90-4.10) | 2.00 | - | 0.5 | - | - | 3.00 | 10.000 | 8.0000 (+0.00%) ok |\n")) << md;
  // jit: 10 s overhead / (4 - 3) s per step; its parts in the store's (sorted) order.
  EXPECT_TRUE(has(md, "| gpt2 | fp32 | jit | 3.00 (2.90-3.10) | 2.67 | 2.0 (fuse 0 + graph trace 1) | 10.0 | 10 | - |")) << md;
  EXPECT_TRUE(has(md, "8.0800 (+1.00%) ok |\n")) << md;
  // inductor: the later throughput trial counts; slower than eager (never), 90 s / (5 - 4.5) against HF eager.
  EXPECT_TRUE(has(md, "| gpt2 | fp32 | inductor | 4.50 (4.40-4.60) | 1.78 | 2.0 | 90.0 | never | 180 | 3.00 | nan | nan (+nan%) DIFFERS |\n")) << md;
  EXPECT_TRUE(has(md, "| gpt2 | fp32 | hf-eager | 5.00 (4.90-5.10) | 1.60 | - | 1.0 | - | - | 3.00 | 10.100 | 8.4000 (+5.00%) DIFFERS |\n")) << md;
  EXPECT_FALSE(has(md, "bf16")) << md;  // no trial: no row
  EXPECT_TRUE(has(md, "\nLoss tolerance: 2% of C++ eager's loss at the same precision (dropout draws differ).\n")) << md;
  // A failed throughput trial is a row of its own, with its error ('|' made '/').
  store.cells[{"gpt2", "fp32", "inductor"}]["throughput"] = {"compile_error", {{"error_message", "a|b"}}};
  md = render(side_by_side_reporters(), "md", store);
  EXPECT_TRUE(has(md, "| gpt2 | fp32 | inductor | compile_error: a/b |\n")) << md;
}

TEST(SideBySideReporters, AMissingStoreIsAClearError) {
  const std::string missing = (temp_dir("side") / "none.db").string();
  const std::string message = error_of([&] { read_side_by_side_store(missing); });
  EXPECT_TRUE(has(message, "'" + missing + "'")) << message;
  EXPECT_FALSE(std::filesystem::exists(missing));
}
