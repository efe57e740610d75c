// fault_matrix: runs the fault matrix (tools/faults/fault_cases.h) and the bad-input table against a tune binary
// and writes reports/reliability.{md,json}; scripts/faults is its one command.
#include <sys/utsname.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tools/faults/bad_inputs.h"
#include "tools/faults/fault_cases.h"

using namespace tune::faults;
namespace fs = std::filesystem;

namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return text;
}

// The scratch folder's path as $WORK: the report reads the same on any machine.
void shorten_paths(std::string& text, const std::string& work) {
  for (size_t at = text.find(work); at != std::string::npos; at = text.find(work, at)) text.replace(at, work.size(), "$WORK");
}

std::string cell(std::string text) {
  for (size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.replace(at, 1, "\\|");
  return text;
}

nlohmann::json to_json(const std::vector<FaultRow>& faults, const std::vector<BadInputRow>& inputs,
                       const nlohmann::json& about) {
  nlohmann::json out{{"schema_version", 1}, {"about", about}, {"faults", nlohmann::json::array()},
                     {"bad_inputs", nlohmann::json::array()}};
  for (const auto& r : faults)
    out["faults"].push_back({{"fault", r.fault}, {"expected", r.expected}, {"runs", r.runs}, {"survived", r.survived},
                             {"committed_trials_lost", r.lost}, {"duplicate_trials", r.duplicated},
                             {"observed", r.observed}});
  for (const auto& r : inputs)
    out["bad_inputs"].push_back({{"input", r.input}, {"flags", r.flags}, {"exit_code", r.exit_code},
                                 {"message", r.message}, {"value_quoted", r.message.find(r.quoted) != std::string::npos},
                                 {"store_written", r.store_written}, {"ok", r.ok()}});
  return out;
}

void write_markdown(std::ostream& out, const nlohmann::json& report) {
  const auto& about = report["about"];
  out << "# Reliability: faults survived, bad inputs tried\n\n"
      << "Made by `scripts/faults` on " << about["date"].get<std::string>() << " on " << about["machine"].get<std::string>()
      << " (" << about["wall_seconds"].get<int>() << " s), tune " << about["tune_version"].get<std::string>()
      << ". Every search is bert-tiny, seq 32, fp32, eager, budget 10m, seed 0; where a rerun's best config is compared "
      << "with an uninterrupted run's, the batch is pinned at 8 so the rate search (by loss, equal under equal seeds) "
      << "decides it exactly. Kill moments are drawn with seed " << about["seed"].get<int>() << ".\n\n"
      << "## Faults\n\n| fault | runs | survived | committed trials lost | duplicate trials | surviving means | observed |\n"
      << "|---|---|---|---|---|---|---|\n";
  for (const auto& r : report["faults"])
    out << "| " << cell(r["fault"]) << " | " << r["runs"] << " | " << r["survived"] << " | " << r["committed_trials_lost"]
        << " | " << r["duplicate_trials"] << " | " << cell(r["expected"]) << " | " << cell(r["observed"]) << " |\n";
  out << "\n\"Duplicate trials\" counts rows beyond one per (study, configuration) and committed trials measured again. "
      << "A trial child's faults are injected by TUNE_TEST_FAULT (src/trial/fault_injection.h, test only); \"hangs\" "
      << "is a child that blocks every catchable signal, which tune's timeout (SIGKILL) ends. A child stuck inside the "
      << "kernel (D state, e.g. a read from a hung NFS server) was not made: SIGKILL takes effect only when the kernel "
      << "returns, and tune waits for it until then.\n\n"
      << "Paths under the matrix's scratch folder are written $WORK.\n\n"
      << "## Bad input\n\nEach against a fresh database path; \"written\" is whether the database or a trial folder "
      << "appeared (for the garbage file: whether its bytes changed).\n\n"
      << "| input | flags | exit | message | value quoted | written |\n|---|---|---|---|---|---|\n";
  for (const auto& r : report["bad_inputs"])
    out << "| " << cell(r["input"]) << " | `" << cell(r["flags"]) << "` | " << r["exit_code"] << " | "
        << cell(r["message"]) << " | " << (r["value_quoted"].get<bool>() ? "yes" : "NO") << " | "
        << (r["store_written"].get<bool>() ? "YES" : "no") << " |\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: fault_matrix TUNE_BINARY WORK_DIR OUT_PREFIX [TUNE_VERSION]\n";
    return 2;
  }
  MatrixContext context{fs::absolute(argv[1]).string(), fs::absolute(argv[2])};
  fs::remove_all(context.work);
  fs::create_directories(context.work);
  const auto start = std::chrono::steady_clock::now();
  auto faults = run_fault_matrix(context, std::cout);
  auto inputs = try_bad_inputs(context.tune, context.work);
  for (auto& r : faults) shorten_paths(r.observed, context.work.string());
  for (auto& r : inputs) shorten_paths(r.message, context.work.string()), shorten_paths(r.flags, context.work.string());
  utsname host{};
  uname(&host);
  const nlohmann::json about{
      {"date", utc_now()}, {"machine", std::string(host.machine) + " " + host.release + ", " +
                                           std::to_string(std::thread::hardware_concurrency()) + " CPUs"},
      {"tune_version", argc > 4 ? argv[4] : "unknown"}, {"seed", context.seed},
      {"wall_seconds", static_cast<int>(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count())}};
  const nlohmann::json report = to_json(faults, inputs, about);
  std::ofstream(std::string(argv[3]) + ".json") << report.dump(2) << "\n";
  std::ofstream md(std::string(argv[3]) + ".md");
  write_markdown(md, report);
  int failed = 0;
  for (const auto& r : faults) failed += r.survived != r.runs || r.lost > 0 || r.duplicated > 0;
  for (const auto& r : inputs) failed += !r.ok();
  std::cout << "fault_matrix: " << faults.size() << " faults, " << inputs.size() << " bad inputs; " << failed
            << " rows not survived\n";
  return failed == 0 ? 0 : 1;
}
