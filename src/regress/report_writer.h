// Renders a regression report: markdown for a CI summary (verdict first, one row per metric, then how to
// read it) and JSON with a schema version that also carries the current run (it can become the reference).
#pragma once
#include <ostream>

#include <nlohmann/json.hpp>

#include "regress/report.h"

namespace tune {

constexpr int kRegressionReportSchema = 1;

void write_regression_markdown(std::ostream& out, const RegressionReport& report);
nlohmann::json regression_report_json(const RegressionReport& report, const RegressionRun& current);

}  // namespace tune
