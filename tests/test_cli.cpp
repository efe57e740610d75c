// `tune` end to end, as a user runs it: a tiny-model search prints the table and stores it, a rerun
// reuses the stored trials, `tune table` and `tune export` read the store, and bad input exits non-zero with a clear message.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "test_helpers.h"
#include "util/paths.h"

using tune::testing::CliRun;
using tune::testing::read_file;
using tune::testing::temp_dir;
using tune::testing::tune_cli;
using tune::testing::write_file;

namespace {

// (trials run, trials reused) per backend, from the summary lines "- eager: ...; 7 trials run, 0 reused ...".
std::vector<std::pair<int, int>> trial_counts(const std::string& output) {
  std::vector<std::pair<int, int>> counts;
  const std::regex line(R"((\d+) trials run, (\d+) reused from the store)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line); it != std::sregex_iterator(); ++it)
    counts.emplace_back(std::stoi((*it)[1]), std::stoi((*it)[2]));
  return counts;
}

}  // namespace

TEST(Cli, TinySearchPrintsTableStoresAndReuses) {
  const auto dir = temp_dir("cli");
  const std::string db = (dir / "t.db").string();
  const CliRun first = tune_cli("--model bert-tiny --backends eager,jit --precisions fp32 --budget 10m --db " + db);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("compiled training step (backend=jit)"), std::string::npos);
  EXPECT_NE(first.output.find("| bert-tiny"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find(" (jit"), std::string::npos) << first.output;  // "32 (jit)", "32 (jit; ...)"
  EXPECT_NE(first.output.find("budget 10m 00s (--budget)"), std::string::npos) << first.output;
  // It ends with the answer in a few lines, after the table, naming the file that keeps the full table.
  const size_t answer = first.output.find("\n## Answer: bert-tiny on ");
  ASSERT_NE(answer, std::string::npos) << first.output;
  EXPECT_GT(answer, first.output.find("| bert-tiny"));
  EXPECT_NE(first.output.find("\n- run: fp32, ", answer), std::string::npos) << first.output.substr(answer);
  const std::regex report_line(R"(- the full table and notes: (\S+\.md))");
  std::smatch report;
  ASSERT_TRUE(std::regex_search(first.output.cbegin() + static_cast<long>(answer), first.output.cend(), report, report_line));
  EXPECT_NE(read_file(report[1].str()).find("| bert-tiny"), std::string::npos) << report[1];

  // A rerun re-measures nothing the first run finished (under load the first run may have stopped on its
  // budget, so the rerun may add trials; it must still reuse every one already stored).
  const CliRun again = tune_cli("--model bert-tiny --backends eager,jit --precisions fp32 --budget 10m --db " + db +
                                " --emit hf --emit-dir " + (dir / "emit").string());
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const auto hf = nlohmann::json::parse(read_file(dir / "emit" / "tune-bert-tiny-training-args.json"));
  EXPECT_GT(hf["per_device_train_batch_size"].get<int>(), 0) << hf.dump(1);
  EXPECT_NE(again.output.find("for your script (hf): "), std::string::npos) << again.output;
  const auto first_counts = trial_counts(first.output), again_counts = trial_counts(again.output);
  ASSERT_EQ(first_counts.size(), 2u) << first.output;
  ASSERT_EQ(again_counts.size(), 2u) << again.output;
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(again_counts[i].second, first_counts[i].first + first_counts[i].second) << again.output;
  EXPECT_EQ(again.output.find("tune: measured matmul peak: "), std::string::npos) << "the stored peak is reused";

  const std::string page = (dir / "t.html").string();
  const CliRun html = tune_cli("table --format html --db " + db + " --out " + page);
  ASSERT_EQ(html.exit_code, 0) << html.output;
  const std::string page_text = read_file(page);
  for (const char* chart : {"throughput", "loss", "amortization"})
    EXPECT_NE(page_text.find(std::string("data-chart=\"") + chart + "\""), std::string::npos) << chart;

  const CliRun table = tune_cli("table --format json --db " + db);
  ASSERT_EQ(table.exit_code, 0) << table.output;
  const auto json = nlohmann::json::parse(table.output);
  EXPECT_EQ(json["schema_version"], 17);  // report/tested_models_table.h kTableJsonSchemaVersion
  // The search measured the matmul peak into its new store, and the row's MFU is taken against it.
  EXPECT_EQ(json["rows"][0]["mfu_peak"]["source"], "measured") << json["rows"][0]["mfu_peak"].dump();
  EXPECT_NE(first.output.find("tune: measured matmul peak: "), std::string::npos) << first.output;
  EXPECT_EQ(json["rows"][0]["native"]["lr_horizon_steps"], 12);
  ASSERT_EQ(json["rows"].size(), 1u);
  EXPECT_EQ(json["rows"][0]["model"], "bert-tiny");
  EXPECT_GT(json["rows"][0]["native"]["samples_per_second"].get<double>(), 0);
  EXPECT_EQ(json["rows"][0]["compiled_backend"], "jit");
  // The confirmation ran its rounds (configs/search.yaml: 4) and the row's verdict comes from them.
  const auto& paired = json["rows"][0]["paired"];
  EXPECT_GE(paired["rounds"].get<int>(), 2) << paired.dump();
  EXPECT_NE(paired["verdict"], "unconfirmed") << paired.dump();
  EXPECT_NE(first.output.find("[confirm fp32] eager batch "), std::string::npos) << first.output;

  // The same store through `tune export --json`: both studies, with the trials the search ran and its best configs.
  const CliRun exported = tune_cli("export --json --db " + db);
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  const auto doc = nlohmann::json::parse(exported.output);
  EXPECT_EQ(doc["schema"], "tune-export");
  EXPECT_EQ(doc["schema_version"], 3);  // store/export.h kExportSchemaVersion
  EXPECT_FALSE(doc["instance_peaks"].empty()) << exported.output;
  ASSERT_EQ(doc["studies"].size(), 2u) << exported.output;
  EXPECT_EQ(doc["studies"][0]["backend"], "eager");
  EXPECT_EQ(doc["studies"][1]["backend"], "jit");
  for (const auto& study : doc["studies"]) {  // the best batch size is one an ok trial of the study ran
    ASSERT_TRUE(study["best"].is_object()) << study.dump();
    EXPECT_TRUE(std::any_of(study["trials"].begin(), study["trials"].end(), [&](const nlohmann::json& t) {
      return t["result"]["status"] == "ok" && t["spec"]["batch_size"] == study["best"]["batch_size"];
    })) << study.dump();
  }
  const std::string out = (dir / "export.json").string();
  ASSERT_EQ(tune_cli("export --db " + db + " --out " + out).exit_code, 0);
  std::ifstream out_file(out);
  EXPECT_EQ(nlohmann::json::parse(out_file), doc);
}

// The default precisions (auto) are screened: every pair timed at one batch, the verdicts printed and in the JSON,
// and only the kept pairs searched. bf16 joins fp32 where the CPU runs it fast (AVX512-BF16, AMX).
TEST(Cli, DefaultPrecisionsAreScreenedBeforeTheSearch) {
  const auto dir = temp_dir("cli");
  const CliRun r = tune_cli("--model bert-tiny --backends eager,jit --budget 10m --json --db " + (dir / "t.db").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("(auto: this instance's); each pair screened at one batch before any search"), std::string::npos)
      << r.output;
  const auto json = nlohmann::json::parse(r.output.substr(r.output.find("\n{") + 1));
  EXPECT_EQ(json["schema_version"], 12);  // report/search_reporters.h kSearchJsonSchemaVersion
  for (const auto& s : json["searches"])  // the horizon the budget afforded is never more than the one wanted
    EXPECT_LE(s["lr_horizon_steps"].get<int>(), s["lr_horizon_wanted"].get<int>()) << s.dump();
  const auto& screening = json["screening"];
  ASSERT_GE(screening.size(), 2u) << r.output;
  EXPECT_EQ(screening.size() % 2, 0u);  // eager and jit at each default precision
  size_t kept = 0;
  for (const auto& e : screening) {
    EXPECT_EQ(e["batch_size"], 8);
    EXPECT_EQ(e["status"], "ok") << e.dump();
    kept += e["kept"].get<bool>();
    EXPECT_NE(r.output.find("tune: screen: " + e["backend"].get<std::string>() + " " + e["precision"].get<std::string>()),
              std::string::npos);
  }
  EXPECT_GE(kept, 1u);
  EXPECT_EQ(json["searches"].size(), kept) << r.output;
}

TEST(Cli, UnknownModelIsAClearError) {
  const CliRun r = tune_cli("--model bert-gigantic --db " + (temp_dir("cli") / "t.db").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown model 'bert-gigantic'"), std::string::npos) << r.output;
}

TEST(Cli, TokenizerFolderWithoutFilesIsAClearError) {
  const auto dir = temp_dir("cli");
  const CliRun r = tune_cli("--model bert-tiny --tokenizer " + dir.string() + " --db " + (dir / "t.db").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'" + dir.string() + "'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("vocab.txt"), std::string::npos) << r.output;
}

TEST(Cli, UnreadableDatabaseIsAClearError) {
  const auto dir = temp_dir("cli");
  const std::string junk = write_file(dir / "junk.db", std::string(4096, 'z'));
  const CliRun r = tune_cli("table --db " + junk);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find(junk), std::string::npos) << r.output;
}

TEST(Cli, TableOfAMissingDatabaseIsAClearError) {
  const std::string missing = (temp_dir("cli") / "none.db").string();
  const CliRun r = tune_cli("table --db " + missing);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'" + missing + "'"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(missing)) << "reading a table created a database";
}

TEST(Cli, ExportOfAMissingDatabaseIsAClearError) {
  const std::string missing = (temp_dir("cli") / "none.db").string();
  const CliRun r = tune_cli("export --json --db " + missing);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'" + missing + "'"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(missing)) << "exporting created a database";
}

// scripts/side-by-side writes its table with build/side_by_side_table: made again by this build's tool from a copy
// of the committed store, it is the committed file.
TEST(Cli, SideBySideTableToolRegeneratesTheCommittedTable) {
  const std::filesystem::path root = tune::tune_home(), copy = temp_dir("cli") / "side-by-side.db";
  std::filesystem::copy_file(root / "reports/side-by-side/side-by-side.db", copy);
  const CliRun r = tune::testing::run_command(std::string(SIDE_BY_SIDE_TABLE_EXECUTABLE) + " " + copy.string() + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, read_file(root / "reports/side-by-side/table.md"));
}

TEST(Cli, InvalidFlagsAreClearErrors) {
  CliRun r = tune_cli("--model bert-tiny --bogus-flag 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("bogus-flag"), std::string::npos) << r.output;
  r = tune_cli("--model bert-tiny --budget soon");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'soon'"), std::string::npos) << r.output;
  r = tune_cli("--model bert-tiny --backends eager,tvm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'tvm'"), std::string::npos) << r.output;
  r = tune_cli("--model bert-tiny --precisions fp8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'fp8'"), std::string::npos) << r.output;
  r = tune_cli("--model bert-tiny --tuner hyperband");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'hyperband'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("asha"), std::string::npos) << r.output;  // the known strategies are listed
  r = tune_cli("--model bert-tiny --tuner asha --tuner-option eta");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'eta'"), std::string::npos) << r.output;
}

// --dry-run checks what a search would check (here the GPU run's flags, on any machine) and runs nothing; a bad value
// fails it as it fails a search.
TEST(Cli, ADryRunChecksEveryValueAndRunsNothing) {
  const auto dir = temp_dir("cli");
  const std::string db = (dir / "t.db").string();
  const std::string flags = "--model bert-tiny --backends eager,cuda-graph,inductor --precisions bf16,fp32 --db " + db;
  CliRun r = tune_cli(flags + " --budget 25s --json --dry-run");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("covers backends eager, cuda-graph, inductor (--backends), precisions bf16, fp32"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tune: dry run: every flag and value checked"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[eager"), std::string::npos) << "a trial ran:\n" << r.output;
  EXPECT_FALSE(std::filesystem::exists(db));
  r = tune_cli(flags + " --budget 25x --dry-run");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'25x'"), std::string::npos) << r.output;
  r = tune_cli("--model bert-tiny --backends eager,cuda-grap --dry-run --db " + db);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'cuda-grap'"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(db));
}

// Issue 20's bad input: each a user error before any trial (exit 2, the value quoted), and the database never
// created; a search that answers nothing exits non-zero.
TEST(Cli, OutOfRangeValuesFailBeforeAnyTrialAndWriteNothing) {
  const auto dir = temp_dir("cli");
  const std::string db = (dir / "t.db").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--seq-len 0", "--seq-len 0: expected at least 1"},
      {"--seq-len 100000", "--seq-len 100000: model bert-tiny holds at most 128 positions"},
      {"--budget 0s", "duration '0s': expected more than zero seconds"},
      {"--max-trials 0", "--max-trials 0: expected at least 1"},
      {"--settings " + write_file(dir / "s.yaml", "max_batchsize: 64\n"), "did you mean 'max_batch_size'"}};
  for (const auto& [flags, message] : cases) {
    const CliRun r = tune_cli("--model bert-tiny --backends eager --precisions fp32 " + flags + " --db " + db);
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << flags << "\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(db)) << flags << " created the database";
  }
  // A memory cap no batch fits: every trial fails, the search answers nothing, and says so by its exit code.
  const CliRun none = tune_cli("--model bert-tiny --backends eager --precisions fp32 --budget 10m --settings " +
                               write_file(dir / "tiny-memory.yaml", "memory_fraction: 0.00001\n") + " --db " + db);
  EXPECT_EQ(none.exit_code, 3) << none.output;
  EXPECT_NE(none.output.find("no backend found a best config"), std::string::npos) << none.output;
}

// A corpus replaced at the same path is other data: the trials measured on the old file run again; an untouched
// file's trials are reused.
TEST(Cli, ACorpusReplacedAtTheSamePathIsMeasuredAgain) {
  const auto dir = temp_dir("cli");
  const std::string db = (dir / "t.db").string();
  std::string text;
  for (int i = 0; i < 400; ++i) text += "the quick brown fox jumps over the lazy dog number " + std::to_string(i) + ".\n";
  const std::string corpus = write_file(dir / "corpus.txt", text);
  const std::string args = "--model bert-tiny --backends eager --precisions fp32 --budget 10m --corpus " + corpus + " --db " + db;
  const CliRun first = tune_cli(args);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const CliRun same = tune_cli(args);
  EXPECT_EQ(same.output.find("runs again"), std::string::npos) << same.output;
  write_file(corpus, text + "one more line, so another file.\n");
  const CliRun replaced = tune_cli(args);
  ASSERT_EQ(replaced.exit_code, 0) << replaced.output;
  EXPECT_NE(replaced.output.find("stored trial measured on other files at the same paths"), std::string::npos)
      << replaced.output;
  EXPECT_EQ(trial_counts(replaced.output).at(0).second, 0) << "a trial of the old corpus was reused";
}

// The default corpus written anew with the same text (scripts/setup on a new machine or in a new clone: a new
// modification time) is the same input: the stored trials are reused, none runs again. (Before, the identity went
// by modification time, and every committed trial ran again after setup rewrote corpus/.)
TEST(Cli, TheDefaultCorpusRewrittenAlikeReusesTheStoredTrials) {
  const auto dir = temp_dir("cli");
  std::string text;
  for (int i = 0; i < 400; ++i) text += "the quick brown fox jumps over the lazy dog number " + std::to_string(i) + ".\n";
  const std::string corpus = write_file(dir / "corpus" / "kjv.txt", text);
  const std::string env = "TUNE_CORPUS=" + (dir / "corpus").string() + " ";
  const std::string args = "--model bert-tiny --backends eager --precisions fp32 --budget 10m --db " + (dir / "t.db").string();
  const CliRun first = tune::testing::run_command(env + TUNE_EXECUTABLE + " " + args + " 2>&1");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::filesystem::remove(corpus);
  write_file(corpus, text);
  std::filesystem::last_write_time(corpus, std::filesystem::last_write_time(corpus) + std::chrono::hours(30));
  const CliRun again = tune::testing::run_command(env + TUNE_EXECUTABLE + " " + args + " 2>&1");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(again.output.find("runs again"), std::string::npos) << again.output;
  EXPECT_EQ(trial_counts(again.output).at(0).first, 0) << "no trial ran again: " << again.output;
}

// A registered strategy drives the real search end to end: ASHA on the learning rate of bert-tiny.
TEST(Cli, TunerFlagRunsTheNamedStrategy) {
  const auto dir = temp_dir("cli");
  const CliRun r = tune_cli("--model bert-tiny --backends eager --precisions fp32 --tuner asha --tuner-option eta=2 --max-trials 8"
                            " --budget 10m --db " + (dir / "t.db").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| bert-tiny"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[eager fp32] learning_rate"), std::string::npos) << r.output;
  const CliRun list = tune_cli("tuners");
  ASSERT_EQ(list.exit_code, 0) << list.output;
  for (const char* name : {"grid", "random", "batch_search", "asha", "gp", "batch_ramp", "lr_sweep"})
    EXPECT_NE(list.output.find(name), std::string::npos) << name << "\n" << list.output;
}

TEST(Cli, ModelsAndInstanceList) {
  const CliRun models = tune_cli("models");
  ASSERT_EQ(models.exit_code, 0);
  EXPECT_NE(models.output.find("bert-base-cased"), std::string::npos);
  EXPECT_NE(models.output.find("108340804"), std::string::npos);
  const CliRun inst = tune_cli("instance --instance cpu-1thread");
  ASSERT_EQ(inst.exit_code, 0) << inst.output;
  EXPECT_NE(inst.output.find("threads:     1"), std::string::npos) << inst.output;
}

// `tune instance --measure-peak` measures the matmul peak and stores it with the instance's fingerprint; without
// it, `tune instance` shows what the store holds, and never creates a store behind a mistyped path.
TEST(Cli, InstanceMeasuresStoresAndShowsTheMatmulPeak) {
  const auto dir = temp_dir("cli");
  const std::string db = (dir / "peaks.db").string();
  const CliRun missing = tune_cli("instance --db " + db);
  ASSERT_EQ(missing.exit_code, 0) << missing.output;
  EXPECT_NE(missing.output.find("measured peaks: no database at"), std::string::npos) << missing.output;
  EXPECT_FALSE(std::filesystem::exists(db));
  const CliRun measured = tune_cli("instance --instance cpu-1thread --measure-peak --precisions fp32 --db " + db);
  ASSERT_EQ(measured.exit_code, 0) << measured.output;
  EXPECT_NE(measured.output.find("measured:    "), std::string::npos) << measured.output;
  EXPECT_NE(measured.output.find(" fp32 (torch.mm "), std::string::npos) << measured.output;
  const CliRun shown = tune_cli("instance --instance cpu-1thread --db " + db);
  ASSERT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_NE(shown.output.find("stored peak: "), std::string::npos) << shown.output;
  EXPECT_NE(shown.output.find("fp32, 1 threads, median of "), std::string::npos) << shown.output;
  const CliRun bad = tune_cli("instance --measure-peak --precisions fp8 --db " + db);
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("'fp8'"), std::string::npos) << bad.output;
}

// A search the budget cut says so in its answer, with the command that continues it; that command runs and reuses
// every throughput trial of the cut ramp (its rate trials answer only the batch they ran at).
TEST(Cli, ACutSearchsAnswerSaysHowToContinueIt) {
  const auto dir = temp_dir("cli-cut");
  const std::string db = (dir / "t.db").string();
  const CliRun cut = tune_cli("--model bert-tiny --backends eager --precisions fp32 --budget 2s --db " + db);
  ASSERT_EQ(cut.exit_code, 0) << cut.output;
  const std::regex line("- cut: the budget ended part of this search .*; `tune (.*--budget 4s)` continues it");
  std::smatch found;
  ASSERT_TRUE(std::regex_search(cut.output, found, line)) << cut.output;
  const CliRun resumed = tune_cli(found[1].str());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  const auto count = [](const std::string& text, const std::string& pattern) {
    const std::regex re(pattern);
    return std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator());
  };
  const auto ramp = count(cut.output, R"(\] throughput batch \d+, lr [0-9.e+-]+ (\(~[^)]*\) )?\.\.\. ok)");
  ASSERT_GE(ramp, 1) << cut.output;
  EXPECT_EQ(count(resumed.output, R"(\] throughput batch \d+, lr [0-9.e+-]+: reused from the store)"), ramp)
      << resumed.output;
}

// --observers: after the search, the row's step without and with the tool in one observer trial; the answer says
// what the tool costs, the table's JSON carries it, and a rerun reuses the stored observer trial.
TEST(Cli, ObserversAreTimedAfterTheSearchAndAnswered) {
  const auto dir = temp_dir("cli-observers");
  const std::string args = "--model bert-tiny --backends eager --precisions fp32 --seq-len 32 --budget 1m --observers "
                           "loss-log,tensor-stats:2 --db " + (dir / "t.db").string();
  const CliRun run = tune_cli(args);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("[observe fp32] eager batch"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("+ tensor-stats:2: "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("- with a tool attached: eager batch"), std::string::npos) << run.output;
  const CliRun table = tune_cli("table --format json --db " + (dir / "t.db").string());
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("\"observer\": \"loss-log\""), std::string::npos) << table.output;
  const CliRun again = tune_cli(args);
  EXPECT_NE(again.output.find("paired batch"), std::string::npos);
  EXPECT_NE(again.output.find("reused from the store"), std::string::npos) << again.output;
  EXPECT_NE(tune_cli(args + " --ranks 2").output.find("--observers with --ranks"), std::string::npos);
}

// --ranks 2: every trial data-parallel (2 processes of 1 thread); the row is its own (ranks=2 in its precision
// cell), the answer says the batch is per rank and gives the scaling figures; a rank count out of range is refused.
TEST(Cli, RanksSearchesDataParallelAndSaysTheBatchIsPerRank) {
  const auto dir = temp_dir("cli-ranks");
  const CliRun run = tune_cli("--model bert-tiny --backends eager --precisions fp32 --seq-len 32 --budget 1m "
                              "--ranks 2 --db " + (dir / "t.db").string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("fp32 (attention=math,optimizer=adamw,ranks=2)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("- data-parallel (the batch is per rank): 2 ranks x batch "), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("scaling efficiency"), std::string::npos);
  const CliRun refused = tune_cli("--model bert-tiny --backends eager --ranks 0 --db " + (dir / "t.db").string());
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("--ranks 0: expected 1 to 64"), std::string::npos) << refused.output;
}
