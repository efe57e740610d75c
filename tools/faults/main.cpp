// fault_matrix: runs the fault matrix (tools/faults/fault_cases.h) and the bad-input table against a tune binary
// and writes reports/reliability.{md,json} through its reporters (tools/faults/reliability_report.h), with the
// fuzzing run's figures when given scripts/sanitize's fuzz-summary.json; scripts/faults is its one command.
#include <sys/utsname.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "tools/faults/reliability_report.h"
#include "tools/report_text.h"

using namespace tune::faults;
namespace fs = std::filesystem;

namespace {

// The scratch folder's path as $WORK: the report reads the same on any machine.
void shorten_paths(std::string& text, const std::string& work) {
  for (size_t at = text.find(work); at != std::string::npos; at = text.find(work, at)) text.replace(at, work.size(), "$WORK");
}

ReliabilityAbout about(const MatrixContext& context, const std::string& tune_version, double wall_seconds) {
  utsname host{};
  uname(&host);
  return {tune::utc_minute_now(), std::string(host.machine) + " " + host.release + ", " +
                         std::to_string(std::thread::hardware_concurrency()) + " CPUs",
          tune_version, static_cast<int>(context.seed), static_cast<int>(wall_seconds)};
}

int rows_not_survived(const ReliabilityReport& report) {
  int failed = 0;
  for (const auto& r : report.faults) failed += r.survived != r.runs || r.lost > 0 || r.duplicated > 0;
  for (const auto& r : report.bad_inputs) failed += !r.ok();
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: fault_matrix TUNE_BINARY WORK_DIR OUT_PREFIX [TUNE_VERSION [FUZZ_SUMMARY_JSON]]\n";
    return 2;
  }
  ReliabilityReport report;
  try {  // a bad fuzz summary is found before the matrix's minutes of searches, not after them
    if (argc > 5) report.fuzzing = read_fuzz_summary(argv[5]);
  } catch (const std::invalid_argument& e) {
    std::cerr << "fault_matrix: " << e.what() << "\n";
    return 2;
  }
  MatrixContext context{fs::absolute(argv[1]).string(), fs::absolute(argv[2])};
  fs::remove_all(context.work);
  fs::create_directories(context.work);
  const auto start = std::chrono::steady_clock::now();
  report.faults = run_fault_matrix(context, std::cout);
  report.bad_inputs = try_bad_inputs(context.tune, context.work);
  for (auto& r : report.faults) shorten_paths(r.observed, context.work.string());
  for (auto& r : report.bad_inputs)
    shorten_paths(r.message, context.work.string()), shorten_paths(r.flags, context.work.string());
  report.about = about(context, argc > 4 ? argv[4] : "unknown",
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  for (const auto& reporter : reliability_reporters())
    tune::write_report_file(std::string(argv[3]) + "." + reporter->format(), *reporter, report);
  const int failed = rows_not_survived(report);
  std::cout << "fault_matrix: " << report.faults.size() << " faults, " << report.bad_inputs.size() << " bad inputs; "
            << failed << " rows not survived\n";
  return failed == 0 ? 0 : 1;
}
