// Basic regression check of throughput between two stores, rendered as markdown for CI.
// A row present in the reference and missing now is reported, not silently passed.
#include "report/regression_report.h"

#include <map>

#include "util/table_format.h"

namespace tune {
namespace {

std::string row_id(const BestRow& r) {
  return r.key.model + " / " + r.key.instance_fingerprint + " / " + r.key.backend + " / " + r.key.precision +
         " / seq " + std::to_string(r.key.seq_len);
}

}  // namespace

bool RegressionReport::regression() const {
  for (const auto& l : lines)
    if (l.verdict != "ok") return true;
  return false;
}

RegressionReport compare_best(const std::vector<BestRow>& reference, const std::vector<BestRow>& current,
                              double max_drop) {
  std::map<std::string, const BestRow*> now;
  for (const auto& r : current) now[row_id(r)] = &r;
  RegressionReport report;
  for (const auto& ref : reference) {
    RegressionLine line{row_id(ref), ref.best.samples_per_second, 0, 0, "missing"};
    if (auto it = now.find(line.what); it != now.end()) {
      line.current = it->second->best.samples_per_second;
      line.change = line.reference > 0 ? line.current / line.reference - 1 : 0;
      line.verdict = line.change < -max_drop ? "regression" : "ok";
    }
    report.lines.push_back(line);
  }
  return report;
}

void write_regression_markdown(std::ostream& out, const RegressionReport& report, double max_drop) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& l : report.lines)
    rows.push_back({l.what, strf("%.2f", l.reference), strf("%.2f", l.current), strf("%+.1f%%", 100 * l.change),
                    l.verdict});
  out << "## tune regress: samples/s, current vs reference (threshold -" << strf("%.0f", 100 * max_drop) << "%)\n\n";
  write_markdown_table(out, {"study", "reference", "current", "change", "verdict"}, rows);
  out << "\n" << (report.regression() ? "REGRESSION" : "no regression") << "\n";
}

}  // namespace tune
