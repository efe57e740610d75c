// The reliability report's reporters: markdown (what a reader checks: every fault survived, every bad input
// refused, every fuzz target without a crash) and JSON (schema kReliabilitySchemaVersion; CommittedReports reads it).
#include "tools/faults/reliability_report.h"

#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tools/report_text.h"

namespace tune::faults {
namespace {

std::string cell(std::string text) {
  for (size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.replace(at, 1, "\\|");
  return text;
}

nlohmann::json optional_json(const std::optional<int64_t>& figure) {
  return figure ? nlohmann::json(*figure) : nlohmann::json(nullptr);
}

std::string optional_cell(const std::optional<int64_t>& figure) { return figure ? std::to_string(*figure) : "–"; }

nlohmann::json fuzzing_json(const std::optional<FuzzFigures>& fuzzing) {
  if (!fuzzing) return nullptr;
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& t : fuzzing->targets)
    targets.push_back({{"target", t.target}, {"seconds", t.seconds}, {"executions", optional_json(t.executions)},
                       {"edges", optional_json(t.edges)}, {"features", optional_json(t.features)},
                       {"corpus", t.corpus}, {"crashes", t.crashes}});
  return {{"date", fuzzing->date}, {"seconds_per_target", fuzzing->seconds_per_target}, {"seed", fuzzing->seed},
          {"targets", targets}};
}

nlohmann::json report_json(const ReliabilityReport& report) {
  const ReliabilityAbout& a = report.about;
  nlohmann::json out{{"schema_version", kReliabilitySchemaVersion},
                     {"about", {{"date", a.date}, {"machine", a.machine}, {"tune_version", a.tune_version},
                                {"seed", a.seed}, {"wall_seconds", a.wall_seconds}}},
                     {"faults", nlohmann::json::array()}, {"bad_inputs", nlohmann::json::array()},
                     {"fuzzing", fuzzing_json(report.fuzzing)}};
  for (const auto& r : report.faults)
    out["faults"].push_back({{"fault", r.fault}, {"expected", r.expected}, {"runs", r.runs}, {"survived", r.survived},
                             {"committed_trials_lost", r.lost}, {"duplicate_trials", r.duplicated},
                             {"observed", r.observed}});
  for (const auto& r : report.bad_inputs)
    out["bad_inputs"].push_back({{"input", r.input}, {"flags", r.flags}, {"exit_code", r.exit_code},
                                 {"message", r.message}, {"value_quoted", r.value_quoted()},
                                 {"store_written", r.store_written}, {"ok", r.ok()}});
  return out;
}

void write_faults(std::ostream& out, const ReliabilityReport& report) {
  const ReliabilityAbout& about = report.about;
  out << "# Reliability: faults survived, bad inputs tried\n\n"
      << "Made by `scripts/faults` on " << about.date << " on " << about.machine << " (" << about.wall_seconds
      << " s), tune " << about.tune_version
      << ". Every search is bert-tiny, seq 32, fp32, eager, budget 10m, seed 0; where a rerun's best config is compared "
      << "with an uninterrupted run's, the batch is pinned at 8 so the rate search (by loss, equal under equal seeds) "
      << "decides it exactly. Kill moments are drawn with seed " << about.seed << ".\n\n"
      << "## Faults\n\n| fault | runs | survived | committed trials lost | duplicate trials | surviving means | observed |\n"
      << "|---|---|---|---|---|---|---|\n";
  for (const auto& r : report.faults)
    out << "| " << cell(r.fault) << " | " << r.runs << " | " << r.survived << " | " << r.lost << " | " << r.duplicated
        << " | " << cell(r.expected) << " | " << cell(r.observed) << " |\n";
  out << "\n\"Duplicate trials\" counts rows beyond one per (study, configuration) and committed trials measured again. "
      << "A trial child's faults are injected by TUNE_TEST_FAULT (src/trial/fault_injection.h, test only); \"hangs\" "
      << "is a child that blocks every catchable signal, which tune's timeout (SIGKILL) ends. A child stuck inside the "
      << "kernel (D state, e.g. a read from a hung NFS server) was not made: SIGKILL takes effect only when the kernel "
      << "returns, and tune waits for it until then.\n\n"
      << "The compile cache rows run `tune trial` with Inductor (bert-tiny, seq 32, batch 8, fp32) on a shared cache "
      << "(TUNE_INDUCTOR_CACHE_DIR): one cold trial fills and seals it (its manifest tune-cache.json: torch, Python, "
      << "machine, the size and digest of every file; src/trial/compile_cache.py), each row then damages a copy of it "
      << "and runs the same trial there. \"Sealed anew\": after the rebuild the manifest carries this machine's identity "
      << "again.\n\n"
      << "Paths under the matrix's scratch folder are written $WORK.\n\n";
}

void write_bad_inputs(std::ostream& out, const ReliabilityReport& report) {
  out << "## Bad input\n\nEach against a fresh database path; \"written\" is whether the database or a trial folder "
      << "appeared (for the garbage file: whether its bytes changed).\n\n"
      << "| input | flags | exit | message | value quoted | written |\n|---|---|---|---|---|---|\n";
  for (const auto& r : report.bad_inputs)
    out << "| " << cell(r.input) << " | `" << cell(r.flags) << "` | " << r.exit_code << " | " << cell(r.message)
        << " | " << (r.value_quoted() ? "yes" : "NO") << " | " << (r.store_written ? "YES" : "no") << " |\n";
}

void write_fuzzing(std::ostream& out, const FuzzFigures& f) {
  out << "\n## Fuzzing\n\nMade by `scripts/sanitize` on " << f.date << ": each libFuzzer target of tests/fuzz (a "
      << "parser of outside bytes in the torch-free core, built with ASan and UBSan) ran " << f.seconds_per_target
      << " s on its seed corpus (tests/fuzz/corpus/TARGET), libFuzzer seed " << f.seed << "; a crash fails the run.\n\n"
      << "| target | seconds | executions | coverage (edges) | features | corpus | crashes |\n"
      << "|---|---|---|---|---|---|---|\n";
  for (const auto& t : f.targets)
    out << "| " << cell(t.target) << " | " << t.seconds << " | " << optional_cell(t.executions) << " | "
        << optional_cell(t.edges) << " | " << optional_cell(t.features) << " | " << cell(t.corpus) << " | "
        << t.crashes << " |\n";
}

class ReliabilityMarkdownReporter : public Reporter<ReliabilityReport> {
 public:
  std::string format() const override { return "md"; }
  void write(std::ostream& out, const ReliabilityReport& report) const override {
    write_faults(out, report);
    write_bad_inputs(out, report);
    if (report.fuzzing) write_fuzzing(out, *report.fuzzing);
  }
};

class ReliabilityJsonReporter : public Reporter<ReliabilityReport> {
 public:
  std::string format() const override { return "json"; }
  void write(std::ostream& out, const ReliabilityReport& report) const override {
    out << report_json(report).dump(2) << "\n";
  }
};

std::optional<int64_t> optional_figure(const nlohmann::json& target, const char* key) {
  const auto& value = target.at(key);
  if (value.is_null()) return std::nullopt;
  return value.get<int64_t>();
}

FuzzTarget fuzz_target(const nlohmann::json& t) {
  return {t.at("target").get<std::string>(), t.at("seconds").get<int>(), optional_figure(t, "executions"),
          optional_figure(t, "edges"), optional_figure(t, "features"), t.at("corpus").get<std::string>(),
          t.at("crashes").get<int>()};
}

}  // namespace

FuzzFigures read_fuzz_summary(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw std::invalid_argument("fuzz summary '" + path + "': no such file (run scripts/sanitize first)");
  try {
    const auto doc = nlohmann::json::parse(read_text_file(path));
    if (doc.value("schema", "") != "tune-fuzz-summary" || doc.value("schema_version", 0) != kFuzzSummarySchemaVersion)
      throw std::invalid_argument("expected schema tune-fuzz-summary version " +
                                  std::to_string(kFuzzSummarySchemaVersion) + ", as scripts/sanitize writes it");
    FuzzFigures figures{doc.at("date").get<std::string>(), doc.at("seconds_per_target").get<int>(),
                        doc.at("seed").get<int>(), {}};
    for (const auto& t : doc.at("targets")) figures.targets.push_back(fuzz_target(t));
    return figures;
  } catch (const std::exception& e) {  // nlohmann's parse and type errors too
    throw std::invalid_argument("fuzz summary '" + path + "': " + e.what());
  }
}

ReporterList<ReliabilityReport> reliability_reporters() {
  return reporter_list<ReliabilityReport, ReliabilityMarkdownReporter, ReliabilityJsonReporter>();
}

}  // namespace tune::faults
