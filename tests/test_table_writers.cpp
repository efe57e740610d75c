// The tested-models table on a synthetic store: gathering (rows, what stopped each batch search) and
// each writer's output (markdown marks, CSV quoting, JSON schema, HTML charts and no external fetches).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/answer.h"
#include "report/table_cells.h"
#include "report/table_reporters.h"
#include "table_fixture.h"
#include "test_helpers.h"

using namespace tune;
using tune::testing::error_of;
using tune::testing::temp_dir;

namespace {

TestedModelsTable fixture_table() {
  const std::string path = (temp_dir("table") / "t.db").string();
  tune::testing::write_table_fixture(path);
  const Database db(path);
  return gather_tested_models(db, "fixture.db");
}

std::string render(const std::string& format, const TestedModelsTable& table) {
  std::ostringstream out;
  make_table_reporter(format)->write(out, table);
  return out.str();
}

const BackendResult& backend(const TableRow& row, const std::string& name) {
  for (const auto& b : row.backends)
    if (b.backend == name) return b;
  throw std::runtime_error("row " + row.model + " has no backend " + name);
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted && ch == '"' && i + 1 < text.size() && text[i + 1] == '"') records.back().back() += text[++i];
    else if (ch == '"') quoted = !quoted;
    else if (!quoted && ch == ',') records.back().emplace_back();
    else if (!quoted && ch == '\n') records.emplace_back(1);
    else records.back().back() += ch;
  }
  if (records.back().size() == 1 && records.back()[0].empty()) records.pop_back();
  return records;
}

// The index of a CSV column by its header name (the header's size when it has none).
size_t column_of(const std::vector<std::string>& header, const std::string& name) {
  return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
}

// Markdown with each cell's padding removed ("| 8    |" -> "| 8 |"), so tests match cells in sequence.
std::string unpadded(const std::string& md) { return std::regex_replace(md, std::regex(" +\\|"), " |"); }

}  // namespace

TEST(TestedModelsTable, OneRowPerModelWithEachBatchLimit) {
  const auto table = fixture_table();
  ASSERT_EQ(table.rows.size(), 3u);
  const TableRow& bert = table.rows[0];
  const TableRow& gpt2 = table.rows[1];
  const TableRow& t5 = table.rows[2];
  EXPECT_EQ(bert.model, "bert-tiny");
  EXPECT_EQ(bert.native_result()->backend, "eager");
  EXPECT_EQ(bert.compiled_result()->backend, "jit");
  EXPECT_EQ(backend(bert, "eager").best.stop.batch_limit, BatchLimit::memory);
  EXPECT_EQ(backend(bert, "eager").best.stop.limit_batch_size, 16);
  EXPECT_EQ(backend(bert, "jit").best.stop.batch_limit, BatchLimit::range);
  EXPECT_EQ(backend(gpt2, "eager").best.stop.batch_limit, BatchLimit::throughput);
  EXPECT_EQ(backend(gpt2, "jit").best.stop.batch_limit, BatchLimit::failure);
  EXPECT_EQ(backend(gpt2, "jit").best.stop.limit_status, TrialStatus::timeout);
  EXPECT_EQ(backend(t5, "eager").best.stop.batch_limit, BatchLimit::throughput);  // as stored: the ramp went flat
  EXPECT_EQ(backend(t5, "jit").best.stop.batch_limit, BatchLimit::budget);        // as stored: the budget cut it
  EXPECT_EQ(t5.compiled_result()->backend, "jit") << "hf-eager is a reference, not a compiled backend";
  EXPECT_EQ(t5.backends.size(), 3u);
  EXPECT_EQ(bert.trials_run, 8 + 10);
  EXPECT_FALSE(bert.first_trial_at.empty());
  EXPECT_LE(bert.first_trial_at, bert.last_trial_at);
  EXPECT_TRUE(bert.amortization.worth_compiling);
  EXPECT_FALSE(gpt2.amortization.worth_compiling);
  EXPECT_EQ(backend(bert, "eager").batch_curve.size(), 5u);
  EXPECT_EQ(backend(bert, "eager").lr_curve.size(), 3u);
}

TEST(TestedModelsTable, InstanceIsDescribedFromItsStoredParts) {
  const auto table = fixture_table();
  const InstanceHardware& h = table.rows[0].instance.hardware;
  EXPECT_EQ(h.device, "cpu");
  EXPECT_EQ(h.device_name, tune::testing::kFixtureDeviceName);
  EXPECT_EQ(h.memory_text(), "7.8 GiB");
  EXPECT_EQ(h.threads, 2);
  EXPECT_EQ(h.device_count, 1);
  TableInstance four{"cpu", h};
  four.hardware.device_name = "Intel Xeon";
  four.hardware.device_count = 4;
  EXPECT_EQ(describe_instance(four), "cpu (4x Intel Xeon, 2 threads, 7.8 GiB)");
}

TEST(TestedModelsTable, CompiledTimeCrossesNativeAtBreakEven) {
  const TableRow row = fixture_table().rows[0];
  const double steps = row.amortization.break_even_steps;
  ASSERT_GT(steps, 0);
  EXPECT_GT(compiled_seconds_at(row, steps - 1), native_seconds_at(row, steps - 1));
  EXPECT_LE(compiled_seconds_at(row, steps), native_seconds_at(row, steps));
}

// The headline speed-up compares native and compiled at one batch both ran; best vs best is a figure apart.
TEST(TestedModelsTable, SpeedupComparesOneBatchBothRanAndBestVsBestApart) {
  const auto table = fixture_table();
  const TableRow& bert = table.rows[0];  // eager's best 8 (40/s); jit's best 64 (70/s), 52/s at 8
  EXPECT_EQ(bert.amortization.batch_size, 8);
  EXPECT_NEAR(bert.amortization.speedup, 52.0 / 40, 1e-12);
  EXPECT_NEAR(bert.best_vs_best_speedup, 70.0 / 40, 1e-12);
  // jit's 4.5 s overhead for the training shape and 2 more a job meets; eager's own is 0.
  EXPECT_NEAR(bert.compile_overhead_seconds, 3 * 4.5, 1e-12);
  const TableRow& gpt2 = table.rows[1];  // jit chose 2 (4 timed out): eager ran 2 too
  EXPECT_EQ(gpt2.amortization.batch_size, 2);
  EXPECT_NEAR(gpt2.amortization.speedup, 12.0 / 14, 1e-12);
  const std::string md = render("md", table);
  EXPECT_NE(md.find("| 1.30x at 8 "), std::string::npos) << md;
  EXPECT_NE(md.find("| 1.75x (8 vs 64) "), std::string::npos) << md;
  EXPECT_NE(md.find("steps of batch 8"), std::string::npos) << md;
  EXPECT_NE(md.find("Speed-up (same batch)"), std::string::npos) << md;
}

TEST(TableWriters, ARateLeftAtAnEdgeIsMarkedAndExplained) {
  auto table = fixture_table();
  EXPECT_EQ(render("md", table).find("≥"), std::string::npos);  // nothing marked, no note
  table.rows[0].backends[0].best.stop.lr_edge = RateEdge::above;
  table.rows[0].backends[1].best.stop.lr_edge = RateEdge::below;
  const std::string md = render("md", table);
  EXPECT_NE(md.find("| ≥3.0e-04 "), std::string::npos) << md;
  EXPECT_NE(md.find("| ≤3.0e-04 "), std::string::npos) << md;
  EXPECT_NE(md.find("the best rate may be larger"), std::string::npos) << md;
  EXPECT_NE(render("json", table).find("\"learning_rate_edge\": \"above\""), std::string::npos);
}

// A stored rate that scored below the chosen one (a search with another list ran it) is named with its figure,
// never printed as a runner-up margin of "+-x%", and the note under the table says what it means.
TEST(TableWriters, AStoredRateThatBeatTheChoiceIsNamedAndExplained) {
  auto table = fixture_table();
  EXPECT_EQ(render("md", table).find("not compared"), std::string::npos);  // nothing marked, no note
  BackendResult& eager = table.rows[0].backends[0];
  const auto chosen = std::find_if(eager.lr_curve.begin(), eager.lr_curve.end(), [&](const LearningRatePoint& p) {
    return p.learning_rate == eager.best.learning_rate;
  });
  ASSERT_NE(chosen, eager.lr_curve.end());
  LearningRatePoint stored = *chosen;
  stored.learning_rate = 1.5e-3;
  for (auto& [seed, score] : stored.seed_scores) score *= 0.982;
  eager.lr_curve.push_back(stored);
  const auto second = eager.runner_up_with_margin();
  ASSERT_TRUE(second.has_value());
  EXPECT_NEAR(second->second, -0.018, 1e-9);
  const std::string md = render("md", table);
  EXPECT_NE(md.find("3.0e-04 (12 steps; 1.5e-03 scored 1.8% lower, not compared)"), std::string::npos) << md;
  EXPECT_EQ(md.find("+-"), std::string::npos) << md;
  EXPECT_NE(md.find("the search did not compare the two"), std::string::npos) << md;
}

TEST(TableWriters, MarkdownMarksRangeCapAndMemoryLimit) {
  const std::string md = render("md", fixture_table());
  EXPECT_NE(md.find("| model"), std::string::npos) << md;
  EXPECT_EQ(count(md, "\n| bert-tiny"), 1u) << md;
  EXPECT_EQ(count(md, "\n| gpt2-tiny"), 1u) << md;
  EXPECT_NE(md.find("| 2 (jit; budget)"), std::string::npos) << md;
  EXPECT_NE(md.find("| 8 (OOM at 16)"), std::string::npos) << md;
  EXPECT_NE(md.find("| 64* (jit)"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2 (jit; timeout at 4)"), std::string::npos) << md;
  EXPECT_NE(md.find("\\* largest batch size tested"), std::string::npos) << md;
  EXPECT_NE(md.find("not worth compiling"), std::string::npos) << md;
  EXPECT_NE(md.find("2.15.0"), std::string::npos) << md;
}

TEST(TableWriters, MarkdownOmitsRangeFootnoteWhenNothingIsCapped) {
  auto table = fixture_table();
  table.rows.erase(table.rows.begin());  // only the bert-tiny jit search reached the range maximum
  const std::string md = render("md", table);
  EXPECT_EQ(md.find("*"), std::string::npos) << md;
}

TEST(TableWriters, CsvQuotesFieldsAndKeepsOneRecordPerRow) {
  const std::string csv = render("csv", fixture_table());
  EXPECT_NE(csv.find(",\"Test \"\"CPU\"\", rev 2\","), std::string::npos) << csv;
  const auto records = parse_csv(csv);
  ASSERT_EQ(records.size(), 4u) << csv;
  const auto& header = records[0];
  for (const auto& record : records) EXPECT_EQ(record.size(), header.size()) << csv;
  const auto column = [&](const std::string& name) { return column_of(header, name); };
  ASSERT_LT(column("device_name"), header.size());
  EXPECT_EQ(records[1][column("device_name")], tune::testing::kFixtureDeviceName);
  EXPECT_EQ(records[1][column("native_batch_limit")], "memory");
  EXPECT_EQ(records[1][column("compiled_batch_limit")], "range");
  EXPECT_EQ(records[2][column("worth_compiling")], "false");
  EXPECT_EQ(records[2][column("break_even_steps")], "");
}

TEST(TableWriters, JsonCarriesSchemaVersionAndCurves) {
  const auto json = nlohmann::json::parse(render("json", fixture_table()));
  EXPECT_EQ(json["schema"], "tune-tested-models");
  EXPECT_EQ(json["schema_version"], kTableJsonSchemaVersion);
  ASSERT_EQ(json["rows"].size(), 3u);
  const auto& bert = json["rows"][0];
  EXPECT_EQ(bert["compiled_backend"], "jit");
  EXPECT_TRUE(bert["compiled"]["batch_capped_by_range"].get<bool>());
  EXPECT_EQ(bert["native"]["batch_limit"], "memory");
  EXPECT_EQ(bert["native"]["limit_batch_size"], 16);
  EXPECT_EQ(bert["backends"]["eager"]["curves"]["batch_sizes"].size(), 5u);
  EXPECT_EQ(bert["backends"]["eager"]["curves"]["batch_sizes"][4]["status"], "oom");
  EXPECT_EQ(bert["instance"]["device_name"], tune::testing::kFixtureDeviceName);
  EXPECT_GT(bert["break_even_steps"].get<double>(), 0);
}

TEST(TableWriters, HtmlHasThreeChartsPerRowAndFetchesNothing) {
  const std::string html = render("html", fixture_table());
  EXPECT_EQ(count(html, "<section class=\"row\""), 3u);
  for (const char* kind : {"throughput", "loss", "amortization"})
    EXPECT_EQ(count(html, std::string("<svg class=\"chart\" data-chart=\"") + kind + "\""), 3u) << kind;
  EXPECT_NE(html.find("OOM eager"), std::string::npos);        // the out-of-memory point is marked
  EXPECT_NE(html.find("largest tested"), std::string::npos);  // and the range cap
  EXPECT_EQ(count(html, "break-even "), 1u);                  // only the row worth compiling crosses
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  for (const char* fetch : {" src=", "url(", "@import", "<link", "<img"})
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  EXPECT_EQ(count(html, " href=\""), count(html, " href=\"#")) << "a link leaves the page";
  EXPECT_EQ(html.find("Test \"CPU\""), std::string::npos) << "device name not escaped";
}

TEST(TableWriters, HtmlIndexLinksEachModelToItsFirstSection) {
  const std::string html = render("html", fixture_table());
  for (const char* model : {"bert-tiny", "gpt2-tiny", "t5-tiny"}) {
    EXPECT_EQ(count(html, std::string("<a href=\"#model-") + model + "\">"), 1u) << model;
    EXPECT_EQ(count(html, std::string("id=\"model-") + model + "\""), 1u) << model;
  }
  EXPECT_LT(html.find("<nav class=\"index\""), html.find("<table")) << "the index comes first";
}

// The ten tested models answer users; the tiny variants are CI's: full-size rows first, each set its own table.
TEST(TestedModelsTable, FullSizeModelsComeFirstAndTinyVariantsHaveTheirOwnSection) {
  const std::string path = (temp_dir("table") / "t.db").string();
  tune::testing::write_table_fixture(path);
  {
    Database db(path);
    StudyKey key = make_study_key("roberta-base", "hash-roberta-base", Instance{}, "2.15.0", "eager", "fp32", 128);
    const int64_t id = db.ensure_study(key);
    TrialSpec spec;
    spec.model.name = "roberta-base";
    spec.batch_size = 8;
    TrialResult result;
    result.samples_per_second = 3;
    db.record_trial(id, spec, result, "d");
    BestConfig best;
    best.batch_size = 8;
    best.samples_per_second = 3;
    db.save_best(id, best);
  }
  const TestedModelsTable table = gather_tested_models(Database(path), "t.db");
  ASSERT_GE(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0].model, "roberta-base");  // after bert-tiny in name order, first as the full-size model
  EXPECT_FALSE(table.rows[0].tiny);
  for (size_t i = 1; i < table.rows.size(); ++i) EXPECT_TRUE(table.rows[i].tiny) << table.rows[i].model;
  const std::string md = render("md", table);
  const auto tested = md.find("## Tested models"), tiny = md.find("## Tiny variants (tests and CI)");
  ASSERT_NE(tiny, std::string::npos) << md;
  EXPECT_LT(tested, md.find("| roberta-base"));
  EXPECT_LT(md.find("| roberta-base"), tiny);
  EXPECT_LT(tiny, md.find("| bert-tiny"));
  const std::string html = render("html", table);
  EXPECT_EQ(count(html, "<table class=\"summary\">"), 2u);
  EXPECT_NE(html.find("<div><b>Tiny variants (tests and CI):</b> <a href=\"#model-bert-tiny\">"), std::string::npos);
  const auto json = nlohmann::json::parse(render("json", table));
  EXPECT_FALSE(json["rows"][0]["tiny"].get<bool>());
  EXPECT_TRUE(json["rows"][1]["tiny"].get<bool>());
  // One set alone (a search's own rows) is one table without section titles.
  TestedModelsTable alone = table;
  alone.rows.erase(alone.rows.begin());
  EXPECT_EQ(render("md", alone).find("## "), std::string::npos);
}

// A row's trials in runs more than an hour apart are that many sittings, and its trials cell says so.
TEST(TestedModelsTable, TrialsHoursApartCountAsSittings) {
  const std::string path = (temp_dir("table-sittings") / "t.db").string();
  {
    Database db(path);
    const int64_t id = db.ensure_study(make_study_key("gpt2", "h", Instance{}, "2.15.0", "eager", "fp32", 128));
    TrialSpec spec;
    spec.model.name = "gpt2";
    TrialResult result;
    result.samples_per_second = 3;
    for (int batch : {1, 2, 4}) {
      spec.batch_size = batch;
      db.record_trial(id, spec, result, "d");
    }
    BestConfig best;
    best.batch_size = 4;
    best.samples_per_second = 3;
    db.save_best(id, best);
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  // Batch 1 and 2 ten minutes apart, batch 4 the next day: two sittings.
  const char* sql = "UPDATE trials SET finished_at = CASE batch_size WHEN 1 THEN '2026-12-01T10:00:00Z' "
                    "WHEN 2 THEN '2026-12-01T10:10:00Z' ELSE '2026-12-02T09:00:00Z' END";
  ASSERT_EQ(sqlite3_exec(raw, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  const TestedModelsTable table = gather_tested_models(Database(path), "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].sittings, 2);
  EXPECT_NE(trials_cell(table.rows[0]).find("3 in "), std::string::npos) << trials_cell(table.rows[0]);
  EXPECT_NE(trials_cell(table.rows[0]).find(" over 2 sittings"), std::string::npos) << trials_cell(table.rows[0]);
  EXPECT_EQ(nlohmann::json::parse(render("json", table))["rows"][0]["sittings"], 2);
}

TEST(TableWriters, EachRowStatesItsBudgetStartAndData) {
  auto table = fixture_table();
  const std::string before = unpadded(render("md", table));
  EXPECT_NE(before.find("| 0.1.0 | 2.15.0 |"), std::string::npos) << before;  // tune's version, then libtorch's
  EXPECT_NE(before.find("| random; masked_lm: tune's corpus, hashed words |"), std::string::npos) << before;
  EXPECT_NE(before.find("| not recorded |"), std::string::npos) << before;  // stored before budgets were
  EXPECT_NE(before.find("| 11 in "), std::string::npos) << before;           // trials and their time
  for (auto& b : table.rows[1].backends) b.best.search_budget_seconds = 1800;  // gpt2-tiny: nothing cut
  table.rows[1].search_budget_seconds = 1800;
  table.rows[0].search_budget_seconds = 1800;  // bert-tiny: its eager rates ranked after 4 of 12 steps
  table.rows[0].backends[0].best.stop.lr_horizon_steps = 4;
  table.rows[0].backends[0].best.stop.lr_horizon_wanted = 12;
  const std::string md = unpadded(render("md", table));
  EXPECT_NE(md.find("| 30m 00s, cut |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 30m 00s |"), std::string::npos) << md;
  EXPECT_NE(md.find("3.0e-04 (budget: 4 of 12 steps; next +4.8%)"), std::string::npos) << md;
  const auto json = nlohmann::json::parse(render("json", table));
  EXPECT_EQ(json["rows"][0]["search_budget_seconds"], 1800);
  EXPECT_TRUE(json["rows"][0]["budget_cut"].get<bool>());
  EXPECT_FALSE(json["rows"][1]["budget_cut"].get<bool>());
  EXPECT_EQ(json["rows"][0]["native"]["lr_horizon_wanted"], 12);
  EXPECT_EQ(json["rows"][0]["start"], "random");
}

// Without a measured peak the search's stored MFU is labelled an estimate; above 100% it proves its peak estimate
// low (a CPU's nominal clock): it is said so, never printed as a figure.
TEST(TableWriters, AnMfuAboveTheEstimatedPeakIsNotAFigure) {
  auto table = fixture_table();
  table.rows[0].backends[0].best.mfu = 0.5;
  table.rows[0].backends[1].best.mfu = 1.18;
  const std::string md = render("md", table);
  EXPECT_NE(md.find("40.00 (MFU est. 50.0%)"), std::string::npos) << md;
  EXPECT_NE(md.find("70.00 (MFU est. >100%: peak estimate low)"), std::string::npos) << md;
  EXPECT_EQ(md.find("118.0%"), std::string::npos) << md;
}

namespace {

// The fixture's bert-tiny bests with their FLOPs counted, as a search stores them: eager at 5e10 FLOP/s (batch 8 at
// 40 samples/s: 0.2 s a step) and jit at 1.04e11 (batch 64 at 70 samples/s), each with an MFU of 25% and 52% against
// the search's estimate (2e11 FLOP/s); with a measured fp32 peak of 1e11 when `measured`.
std::string store_with_flops(bool measured) {
  const std::string path = (temp_dir("table") / "t.db").string();
  tune::testing::write_table_fixture(path);
  Database db(path);
  for (const auto& row : db.best_rows()) {
    if (row.key.model != "bert-tiny") continue;
    BestConfig best = row.best;
    best.flops_per_step = (row.key.backend == "eager" ? 5e10 : 1.04e11) * best.step_time;
    best.mfu = best.flops_per_step / best.step_time / 2e11;
    db.save_best(row.study_id, best);
    if (measured)
      db.save_peak({row.key.hardware.fingerprint(), row.key.libtorch_version, "fp32",
                    {1e11, "torch.mm 2048x2048 fp32, 2 threads, median of 10", "2026-12-05T10:00:00Z"}});
  }
  return path;
}

}  // namespace

// MFU is taken when the table is gathered, against the matmul peak stored for the row's instance, libtorch and
// precision: rows stored before it was measured get it without running a trial again. Without one, the search's
// estimate, labelled so. Above 100% of a measured peak is an error in the cell, never a figure.
TEST(TestedModelsTable, MfuIsTakenAgainstTheStoredMeasuredPeak) {
  const Database estimated(store_with_flops(false));
  const TestedModelsTable before = gather_tested_models(estimated, "fixture.db");
  EXPECT_EQ(before.rows[0].peak.source, PeakSource::estimate);
  EXPECT_DOUBLE_EQ(before.rows[0].peak.flops, 2e11) << "read back from the stored MFU";
  const std::string before_md = render("md", before);
  EXPECT_NE(before_md.find("40.00 (MFU est. 25.0%)"), std::string::npos) << before_md;
  EXPECT_NE(before_md.find("70.00 (MFU est. 52.0%)"), std::string::npos) << before_md;

  const Database measured(store_with_flops(true));
  const TestedModelsTable table = gather_tested_models(measured, "fixture.db");
  const TableRow& bert = table.rows[0];
  ASSERT_EQ(bert.model, "bert-tiny");
  EXPECT_EQ(bert.peak.source, PeakSource::measured);
  EXPECT_DOUBLE_EQ(bert.peak.flops, 1e11);
  EXPECT_NEAR(backend_mfu(bert, backend(bert, "eager")).of_peak, 0.5, 1e-12);
  EXPECT_EQ(backend_mfu(bert, backend(bert, "eager")).of_datasheet, 0) << "a CPU has no datasheet peak";
  const std::string md = unpadded(render("md", table));
  EXPECT_NE(md.find("| 40.00 (MFU 50.0% of measured) | 70.00 (MFU error: 104% of the measured peak) |"),
            std::string::npos) << md;
  EXPECT_EQ(md.find("104.0%"), std::string::npos) << md;
  EXPECT_NE(md.find("\"of measured\": the peak tune measured"), std::string::npos) << "the setup note says how";
  // gpt2-tiny ran on the same instance, libtorch and precision, but counted no FLOPs: no MFU to show.
  EXPECT_EQ(table.rows[1].peak.source, PeakSource::measured);
  EXPECT_EQ(backend_mfu(table.rows[1], backend(table.rows[1], "eager")).of_peak, 0);

  const auto json = nlohmann::json::parse(render("json", table));
  const auto& row = json["rows"][0];
  EXPECT_EQ(row["mfu_peak"]["source"], "measured");
  EXPECT_DOUBLE_EQ(row["mfu_peak"]["flops_per_second"].get<double>(), 1e11);
  EXPECT_EQ(row["mfu_peak"]["method"], "torch.mm 2048x2048 fp32, 2 threads, median of 10");
  EXPECT_EQ(row["mfu_peak"]["measured_at"], "2026-12-05T10:00:00Z");
  EXPECT_NEAR(row["native"]["mfu"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(row["compiled"]["mfu"].get<double>(), 1.04, 1e-12);
  EXPECT_TRUE(row["native"]["mfu_datasheet"].is_null());
  EXPECT_EQ(json["rows"][1]["native"]["mfu"], 0);
  const auto records = parse_csv(render("csv", table));
  const auto& header = records[0];
  const auto column = [&](const std::string& name) { return column_of(header, name); };
  ASSERT_LT(column("mfu_peak"), header.size());
  EXPECT_EQ(records[1][column("mfu_peak")], "measured");
  EXPECT_EQ(records[1][column("native_mfu")], "0.5");
  EXPECT_EQ(records[2][column("native_mfu")], "");
}

// A row with a paired verdict shows each side at its confirmation rounds' geometric mean, the MFU taken at it, the
// search's one trial named beside it; the JSON and the CSV carry the rounds apart from the search's figure.
TEST(TableWriters, AConfirmedRowShowsTheRoundsSpeedAndItsMfu) {
  const Database measured(store_with_flops(true));
  TestedModelsTable table = gather_tested_models(measured, "fixture.db");
  TableRow& bert = table.rows[0];
  BackendResult& eager = bert.backends[*bert.native];
  eager.repeats = {{1, 30}, {2, 0}, {3, 30 * 1.21}, {4, 30 / 1.21}};  // round 2 failed; geometric mean 30
  bert.backends[*bert.compiled].repeats = {{1, 60}, {3, 60}, {4, 60}};
  bert.confirmed = paired_ratio({2, 2 / 1.21, 2 * 1.21}, 0.95);
  const std::string md = unpadded(render("md", table));
  EXPECT_NE(md.find("| 30.00 (3 rounds, the search's trial 40.00; MFU 37.5% of measured) | 60.00 (3 rounds, the "
                    "search's trial 70.00; MFU 89.1% of measured) |"), std::string::npos) << md;
  EXPECT_NE(md.find("x (8 vs 64, paired) |"), std::string::npos) << md;
  EXPECT_NE(md.find("Samples/s: in a row with a paired verdict"), std::string::npos) << "the note says how";
  const auto json = nlohmann::json::parse(render("json", table));
  const auto& rounds = json["rows"][0]["native"]["confirmation_rounds"];
  EXPECT_EQ(rounds["rounds"], 3);
  EXPECT_NEAR(rounds["samples_per_second"].get<double>(), 30, 1e-9);
  EXPECT_NEAR(rounds["mfu"].get<double>(), 0.375, 1e-9);
  EXPECT_DOUBLE_EQ(json["rows"][0]["native"]["samples_per_second"].get<double>(), 40);  // the search's, as before
  EXPECT_TRUE(json["rows"][1]["native"]["confirmation_rounds"].is_null());
  const auto records = parse_csv(render("csv", table));
  const auto& header = records[0];
  const auto column = [&](const std::string& name) { return column_of(header, name); };
  ASSERT_LT(column("native_rounds_samples_per_second"), header.size());
  EXPECT_EQ(records[1][column("native_rounds")], "3");
  EXPECT_EQ(records[1][column("native_rounds_samples_per_second")], "30");
  EXPECT_EQ(records[1][column("compiled_rounds")], "3");
  for (const auto& record : records) EXPECT_EQ(record.size(), header.size());
}

// On a GPU the datasheet MFU comes first and the share of the measured peak beside it.
TEST(TableWriters, AGpuRowShowsItsDatasheetMfuBesideTheMeasuredOne) {
  const Database db(store_with_flops(true));
  TestedModelsTable table = gather_tested_models(db, "fixture.db");
  table.rows[0].peak.datasheet_flops = 2e11;
  const std::string md = render("md", table);
  EXPECT_NE(md.find("40.00 (MFU 25.0%, 50.0% of measured)"), std::string::npos) << md;
  EXPECT_NE(md.find("70.00 (MFU 52.0%, error: 104% of the measured peak)"), std::string::npos) << md;
}

TEST(TestedModelsTable, APrecisionTheScreenDroppedIsARowSayingWhy) {
  const std::string path = (temp_dir("table") / "t.db").string();
  tune::testing::write_table_fixture(path);
  tune::testing::add_screened_out_row(path);
  const Database db(path);
  const auto table = gather_tested_models(db, "fixture.db");
  ASSERT_EQ(table.rows.size(), 4u);
  const auto row = std::find_if(table.rows.begin(), table.rows.end(),
                                [](const TableRow& r) { return r.model == "gpt2-tiny" && r.precision == "bf16"; });
  ASSERT_NE(row, table.rows.end());
  EXPECT_TRUE(row->screened_out());
  ASSERT_TRUE(row->native_result() && row->compiled_result());
  EXPECT_DOUBLE_EQ(row->native_result()->best.samples_per_second, 9);
  EXPECT_EQ(row->compiled_result()->best.stop.limit_status, TrialStatus::timeout);
  const std::string md = render("md", table);
  std::smatch line;
  ASSERT_TRUE(std::regex_search(md, line, std::regex(R"(\n\| gpt2-tiny [^\n]*\| bf16 [^\n]*)"))) << md;
  const std::string cells = unpadded(line.str());
  EXPECT_NE(cells.find("| 30m 00s, screened out | 8 (screened out) | 8 (jit; screened out) | not searched "
                       "| not searched | 9.00 | timeout | - | - |"),
            std::string::npos) << cells;
  EXPECT_NE(md.find("- gpt2-tiny bf16 on cpu, jit: dropped: timeout: timed out after 27 s\n"), std::string::npos) << md;
  EXPECT_NE(md.find("\"screened out\": tune's default coverage"), std::string::npos) << md;
  const auto json = nlohmann::json::parse(render("json", table));
  bool found = false;
  for (const auto& r : json["rows"])
    if (r["precision"] == "bf16")
      found = r["native"]["screened_out"] == "dropped: 45% of the fastest's samples/s (jit fp32)" &&
              r["native"]["batch_limit"] == "screened_out";
  EXPECT_TRUE(found) << json.dump(1);
  // The fp32 rows' searched backends are unaffected and no screen note is written without a screened-out row.
  EXPECT_EQ(render("md", fixture_table()).find("screened out"), std::string::npos);
}

TEST(TableWriters, UnknownFormatIsAClearError) {
  const std::string message = error_of([] { make_table_reporter("xlsx"); });
  EXPECT_NE(message.find("'xlsx'"), std::string::npos) << message;
  EXPECT_NE(message.find("md, csv, json, html"), std::string::npos) << message;
}

// A stored best the study's own trials overrule (a budget-cut ramp stopped at batch 2; the screen's trial at 8 ran
// faster beyond the noise): the row shows batch 8 from the stored trial, marked, and says its rate was searched at 2.
// A best within the noise of a faster trial stands.
TEST(TestedModelsTable, ThePickSeesEveryStoredTrial) {
  const std::string path = (temp_dir("table-stored-pick") / "t.db").string();
  const auto add_trial = [](Database& db, int64_t id, int batch, double speed) {
    TrialSpec spec;
    spec.model.name = "gpt2";
    spec.batch_size = batch;
    TrialResult result;
    result.status = TrialStatus::ok;
    result.samples_per_second = speed;
    result.step_time_median = batch / speed;
    result.step_time_ci_low = 0.98 * result.step_time_median;
    result.step_time_ci_high = 1.02 * result.step_time_median;
    db.record_trial(id, spec, result, "d");
  };
  {
    Database db(path);
    const int64_t id = db.ensure_study(make_study_key("gpt2", "h", Instance{}, "2.15.0", "eager", "fp32", 128));
    add_trial(db, id, 1, 2.0);
    add_trial(db, id, 2, 3.0);
    add_trial(db, id, 8, 4.5);
    BestConfig best;
    best.batch_size = 2;
    best.learning_rate = 1e-4;
    best.samples_per_second = 3.0;
    best.step_time = 2 / 3.0;
    best.stop.batch_limit = BatchLimit::budget;
    db.save_best(id, best);
  }
  TestedModelsTable table = gather_tested_models(Database(path), "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  const BackendResult& eager = *table.rows[0].native_result();
  EXPECT_EQ(eager.best.batch_size, 8);
  EXPECT_DOUBLE_EQ(eager.best.samples_per_second, 4.5);
  EXPECT_DOUBLE_EQ(eager.best.learning_rate, 1e-4);
  EXPECT_EQ(eager.rate_batch_size, 2);
  EXPECT_EQ(batch_size_cell(eager, ""), "8 (budget; stored trial)");
  EXPECT_NE(learning_rate_cell(eager).find("searched at batch 2"), std::string::npos) << learning_rate_cell(eager);
  const auto notes = table_notes(table);
  EXPECT_NE(std::find(notes.begin(), notes.end(), std::string(kStoredPickNote)), notes.end());
  EXPECT_EQ(nlohmann::json::parse(render("json", table))["rows"][0]["native"]["learning_rate_batch_size"], 2);

  {  // batch 2 at 4.45 lies within batch 8's CI: the stored best stands
    Database db(path);
    const int64_t id = db.ensure_study(make_study_key("gpt2", "h", Instance{}, "2.15.0", "eager", "fp32", 128));
    BestConfig best = *db.best(id);
    best.samples_per_second = 4.45;
    db.save_best(id, best);
  }
  table = gather_tested_models(Database(path), "t.db");
  EXPECT_EQ(table.rows[0].native_result()->best.batch_size, 2);
  EXPECT_EQ(table.rows[0].native_result()->rate_batch_size, 0);
}

// A ranking of rates taken before the model learned is said to be one: a classifier whose chosen rate scores 0.66
// against chance ln 2 = 0.693 (4.8% below) is "not separated yet"; a language model 30% below its first-step loss is.
TEST(TestedModelsTable, RatesTheModelHasNotLearnedFromAreNotAnAnswer) {
  const std::string path = (temp_dir("table-separated") / "t.db").string();
  const auto add_rates = [](Database& db, const std::string& model, const std::string& task, double first,
                            std::vector<std::pair<double, double>> rate_scores) {
    const int64_t id = db.ensure_study(make_study_key(model, "h", Instance{}, "2.15.0", "eager", "fp32", 128));
    TrialSpec spec;
    spec.model.name = model;
    spec.model.task = task;
    spec.purpose = TrialPurpose::learning_rate;
    spec.batch_size = 8;
    spec.train_steps = 12;
    for (const auto& [rate, score] : rate_scores) {
      spec.learning_rate = rate;
      TrialResult result;
      result.status = TrialStatus::ok;
      result.score_loss = score;
      result.losses = {first, score};
      db.record_trial(id, spec, result, "d");
    }
    BestConfig best;
    best.batch_size = 8;
    best.samples_per_second = 3;
    best.learning_rate = rate_scores.front().first;
    db.save_best(id, best);
  };
  {
    Database db(path);
    add_rates(db, "sst2", "sequence_classification", 0.60, {{1e-4, 0.66}, {3e-4, 0.67}});
    add_rates(db, "gpt2", "causal_lm", 10.0, {{1e-3, 7.0}, {3e-3, 7.5}});
  }
  const TestedModelsTable table = gather_tested_models(Database(path), "t.db");
  ASSERT_EQ(table.rows.size(), 2u);
  for (const auto& row : table.rows) {
    const BackendResult& eager = *row.native_result();
    ASSERT_TRUE(eager.learned_share().has_value()) << row.model;
    if (row.model == "sst2") {
      EXPECT_NEAR(*eager.learned_share(), 1 - 0.66 / std::log(2.0), 1e-9);  // chance, not the 0.60 first step
      EXPECT_FALSE(eager.rates_separated());
      EXPECT_NE(learning_rate_cell(eager).find("not separated yet: loss 4.8% below untrained"), std::string::npos)
          << learning_rate_cell(eager);
    } else {
      EXPECT_NEAR(*eager.learned_share(), 0.3, 1e-9);
      EXPECT_TRUE(eager.rates_separated());
      EXPECT_EQ(learning_rate_cell(eager).find("not separated"), std::string::npos) << learning_rate_cell(eager);
    }
  }
  const auto notes = table_notes(table);
  EXPECT_NE(std::find(notes.begin(), notes.end(), std::string(kRatesNotSeparatedNote)), notes.end());
}

// A classifier's store holds rates scored on the training loss (an older search, 96 steps) and rates scored on
// held-out rows (the latest, 12 steps): the curve is the latest scoring's alone, the longer old runs do not stand for
// a rate, and the cell and JSON give the held-out rows and accuracy.
TEST(TestedModelsTable, RatesScoredOnHeldOutRowsAreRankedApartFromTrainingLossScores) {
  const std::string path = (temp_dir("table-held-out") / "t.db").string();
  {
    Database db(path);
    const int64_t id = db.ensure_study(make_study_key("sst2", "h", Instance{}, "2.15.0", "eager", "fp32", 128));
    TrialSpec spec;
    spec.model.name = "sst2";
    spec.model.task = "sequence_classification";
    spec.purpose = TrialPurpose::learning_rate;
    spec.batch_size = 8;
    const auto add = [&](double rate, int steps, double share, double score, double accuracy) {
      spec.learning_rate = rate;
      spec.train_steps = steps;
      spec.data.held_out_share = share;
      TrialResult result;
      result.status = TrialStatus::ok;
      result.score_loss = score;
      result.losses = {0.7, 0.6};
      result.label_prior_loss = 0.64;
      result.held_out_rows = share > 0 ? 400 : 0;
      result.held_out_loss = share > 0 ? score : 0;
      result.held_out_accuracy = accuracy;
      db.record_trial(id, spec, result, "d");
    };
    add(2.7e-3, 96, 0, 0.40, 0);   // scored best on the training loss
    add(9e-4, 96, 0, 0.60, 0);
    add(2.7e-3, 12, 0.1, 0.64, 0.658);
    add(9e-4, 12, 0.1, 0.50, 0.755);
    BestConfig best;
    best.batch_size = 8;
    best.samples_per_second = 3;
    best.learning_rate = 9e-4;
    best.stop.lr_horizon_steps = best.stop.lr_horizon_wanted = 12;
    db.save_best(id, best);
  }
  const TestedModelsTable table = gather_tested_models(Database(path), "t.db");
  ASSERT_EQ(table.rows.size(), 1u);
  const BackendResult& eager = *table.rows[0].native_result();
  ASSERT_EQ(eager.lr_curve.size(), 2u);
  for (const auto& p : eager.lr_curve) {
    EXPECT_EQ(p.train_steps, 12) << p.learning_rate;
    EXPECT_EQ(p.held_out_rows, 400) << p.learning_rate;
  }
  const std::string cell = learning_rate_cell(eager);
  EXPECT_NE(cell.find("12 steps; scored on 400 held-out rows: accuracy 75.5%"), std::string::npos) << cell;
  EXPECT_NE(cell.find("next +28.0%"), std::string::npos) << cell;  // 0.64 over 0.50
  const auto doc = nlohmann::json::parse(render("json", table));
  const auto& backend_json = doc["rows"][0]["native"];
  EXPECT_DOUBLE_EQ(backend_json["learning_rate_held_out_accuracy"].get<double>(), 0.755);
  EXPECT_EQ(backend_json["curves"]["learning_rates"][0]["held_out_rows"], 400);
}

// The confirmation's rounds of the best config moved 5.1% (100 and 95 samples/s); batch 32's one trial (104) is the
// fastest and 16 (100) lies within 5.1% of it, 8 (90) and 64 (80) do not: the cell says 16 and 32 are as fast
// within the noise, and the note explains it. One round gives no spread, and no such claim.
TEST(TestedModelsTable, BatchSizesWithinTheRoundsSpreadAreSaidToTie) {
  BackendResult eager;
  eager.backend = "eager";
  eager.best.batch_size = 16;
  eager.best.samples_per_second = 100;
  eager.best.stop.batch_limit = BatchLimit::throughput;
  for (const auto& [batch, speed] : std::vector<std::pair<int, double>>{{8, 90}, {16, 100}, {32, 104}, {64, 80}})
    eager.batch_curve.push_back(BatchPoint{batch, TrialStatus::ok, speed, 0, 0});
  eager.repeats = {{1, 100}, {2, 95}};
  ASSERT_TRUE(eager.batch_noise_share().has_value());
  EXPECT_NEAR(*eager.batch_noise_share(), 5 / 97.5, 1e-12);
  EXPECT_EQ(eager.batches_within_noise(), (std::vector<int>{16, 32}));
  EXPECT_EQ(batch_size_cell(eager, ""), "16 (16, 32 within the noise: rounds 5.1% apart)");
  TestedModelsTable table;
  table.rows.emplace_back();
  table.rows[0].backends.push_back(eager);
  const auto notes = table_notes(table);
  EXPECT_NE(std::find(notes.begin(), notes.end(), std::string(kBatchWithinNoiseNote)), notes.end());

  eager.repeats = {{1, 100}, {2, 0}};  // the second round failed
  EXPECT_FALSE(eager.batch_noise_share().has_value());
  EXPECT_TRUE(eager.batches_within_noise().empty());
  EXPECT_EQ(batch_size_cell(eager, ""), "16");
}

// A row with two compiled backends (jit, the fastest, and inductor:regional, slower with a cheaper compile): the
// row's columns stay jit's, the other is compared with native at the batch both ran (its figures from the search's
// trials), said under the table, in the JSON, and in the answer, which with --job-steps says which compile has paid
// off by the job's end.
TEST(TestedModelsTable, AnotherCompiledBackendGetsItsOwnBreakEvenBesideTheRows) {
  const std::string path = (temp_dir("table-regional") / "t.db").string();
  tune::testing::write_table_fixture(path);
  tune::testing::add_regional_backend(path);
  const Database db(path);
  TestedModelsTable table = gather_tested_models(db, "fixture.db");
  const TableRow& bert = table.rows[0];
  ASSERT_EQ(bert.compiled_result()->backend, "jit");
  ASSERT_EQ(bert.other_compiles.size(), 1u);
  const OtherCompile& regional = bert.other_compiles[0];
  EXPECT_EQ(regional.backend, "inductor:regional");
  EXPECT_EQ(regional.amortization.batch_size, 8);
  EXPECT_NEAR(regional.amortization.speedup, 46.0 / 40, 1e-12);
  EXPECT_NEAR(regional.net_compile_overhead_seconds, 3 * 1.5, 1e-12);
  // One step of 8 saves 8/40 - 8/46 s: 4.5 s pays off after 172.5 steps; jit's 13.5 s after 292.5 (8/40 - 8/52).
  EXPECT_NEAR(regional.amortization.break_even_steps, 4.5 / (8.0 / 40 - 8.0 / 46), 1.0);
  EXPECT_NEAR(bert.amortization.break_even_steps, 13.5 / (8.0 / 40 - 8.0 / 52), 1.0);
  EXPECT_TRUE(table.rows[1].other_compiles.empty());

  const std::string md = render("md", table);
  EXPECT_NE(md.find(kOtherCompilesNote), std::string::npos);
  EXPECT_NE(md.find("- bert-tiny fp32 on cpu: inductor:regional 1.15x at batch 8, compile 4.5 s, break-even 17"),
            std::string::npos) << md;
  EXPECT_NE(md.find("; the row's jit: 1.30x at batch 8, compile 13.5 s, break-even 29"), std::string::npos) << md;
  const auto json = nlohmann::json::parse(render("json", table));
  EXPECT_EQ(json["rows"][0]["other_compiles"][0]["backend"], "inductor:regional");
  EXPECT_TRUE(json["rows"][1]["other_compiles"].empty());

  table.rows.erase(table.rows.begin() + 1, table.rows.end());
  // 25 steps at jit's batch 64 (1600 samples): past regional's 172.5 x 8 = 1380, short of jit's 292.5 x 8 = 2340.
  const auto answer = answer_from(table, AnswerOptions{JobLength{25, 0}});
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->other_compiles.size(), 1u);
  EXPECT_NE(answer->other_compiles[0].find("by your job's 25 steps inductor:regional has paid off, jit has not"),
            std::string::npos) << answer->other_compiles[0];
}
