// The one reporter interface of tune and its tools, in the style of Google Benchmark's reporters: a
// Reporter<Report> renders one report in one format ("md", "json", "csv", "html") to a std::ostream, and
// pick_reporter chooses one by format name. Each report's data stays beside its producer; its reporters are:
//   TestedModelsTable    md csv json html  report/table_reporters.h        `tune table`, reports/tested-models.*
//   SearchReport         md json           report/search_reporters.h       `tune --model [--json]`
//   RegressionOutcome    md json           regress/regression_reporters.h  `tune regress`
//   ReliabilityReport    md json           tools/faults/reliability_report.h   reports/reliability.*
//   LrHorizonReport      md json           tools/lr_horizon_report.h       reports/lr-horizon.*
//   SideBySideStore      md                tools/side_by_side_report.h     reports/side-by-side/table.md
//   TunerEfficiencyRun   md json           tools/tuner_efficiency_run.h    reports/tuner-efficiency/MODEL-sSEED.*
//   TunerEfficiencySummary md json         tools/tuner_efficiency_summary.h  reports/tuner-efficiency.*
// Header-only, so a tool that links no tune library can implement it too.
#pragma once
#include <fstream>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/join.h"

namespace tune {

template <typename Report>
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual std::string format() const = 0;  // the name pick_reporter knows it by: "md", "json", ...
  virtual void write(std::ostream& out, const Report& report) const = 0;
};

// Every reporter of one report, one per format.
template <typename Report>
using ReporterList = std::vector<std::unique_ptr<Reporter<Report>>>;

// A list of default-constructed reporters: reporter_list<Table, TableMarkdown, TableJson>().
template <typename Report, typename... Kinds>
ReporterList<Report> reporter_list() {
  ReporterList<Report> list;
  (list.push_back(std::make_unique<Kinds>()), ...);
  return list;
}

template <typename Report>
std::vector<std::string> reporter_formats(const ReporterList<Report>& reporters) {
  std::vector<std::string> formats;
  for (const auto& reporter : reporters) formats.push_back(reporter->format());
  return formats;
}

// The reporter of `format` among `reporters`; throws std::invalid_argument quoting any other format and listing
// the known ones ("table format 'xlsx': expected one of md, csv, json, html"). `report` names the report.
template <typename Report>
std::unique_ptr<Reporter<Report>> pick_reporter(const std::string& report, const std::string& format,
                                                ReporterList<Report> reporters) {
  for (auto& reporter : reporters)
    if (reporter->format() == format) return std::move(reporter);
  throw std::invalid_argument(report + " format '" + format + "': expected one of " +
                              join(reporter_formats(reporters), ", "));
}

// Renders `report` into the file at `path`; throws std::invalid_argument naming a path that cannot be written.
template <typename Report>
void write_report_file(const std::string& path, const Reporter<Report>& reporter, const Report& report) {
  std::ofstream out(path);
  if (!out) throw std::invalid_argument("report file '" + path + "': cannot write this file");
  reporter.write(out, report);
}

}  // namespace tune
