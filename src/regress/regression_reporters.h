// The regression report's reporters (report/reporter.h): markdown for a CI summary (verdict first, one row per
// metric, then how to read it) and JSON with a schema version that also carries the current run (it can become
// the reference).
#pragma once
#include <memory>
#include <string>

#include "regress/report.h"
#include "report/reporter.h"

namespace tune {

// 2: thresholds.other_instance_loss_tolerance.
constexpr int kRegressionReportSchema = 2;

// What `tune regress` reports: the verdicts and the run they judged (the JSON carries it).
struct RegressionOutcome {
  RegressionReport report;
  RegressionRun current;
};

// md and json, in that order.
ReporterList<RegressionOutcome> regression_reporters();
// The reporter for "md" or "json"; throws std::invalid_argument quoting any other name.
std::unique_ptr<Reporter<RegressionOutcome>> make_regression_reporter(const std::string& format);

}  // namespace tune
