// The markdown and JSON reporters of a regression report. Changes are shown as signed percentages with their
// interval, so a reader sees at once whether a change is both large and certain.
#include "regress/regression_reporters.h"

#include <nlohmann/json.hpp>

#include "util/table_format.h"

namespace tune {
namespace {

std::string value_cell(const RegressionLine& l, double v) {
  if (l.metric == "speedup" || l.metric == "relative speed") return strf("%.3fx", v);
  if (l.metric == "throughput") return strf("%.1f/s", v);
  if (l.metric == "loss") return strf("%.5f", v);
  return "-";
}

std::string change_cell(const RegressionLine& l) {
  if (l.metric == "loss") return strf("%+.2g", l.change);
  if (l.metric == "trial") return "-";
  return strf("%+.1f%%", 100 * l.change);
}

std::string interval_cell(const RegressionLine& l) {
  return l.has_interval ? strf("[%+.1f%%, %+.1f%%]", 100 * l.ci_low, 100 * l.ci_high) : "-";
}

std::string verdict_cell(const RegressionLine& l) { return l.fails() ? "**REGRESSION**" : l.verdict; }

void write_header(std::ostream& out, const RegressionReport& r) {
  const RegressionConfig& c = r.config;
  const RegressionRun& ref = r.reference_header;
  out << "## tune regress: " << r.verdict() << "\n\n"
      << "- reference: `" << r.reference_path << "`, recorded " << ref.created << " on `" << ref.instance_fingerprint
      << "` (tune " << ref.tune_version << ", libtorch " << ref.libtorch_version << ")\n"
      << "- current: " << r.current_created << " on `" << r.current_instance << "`\n"
      << strf("- each model: %d trial processes; in each, every backend has its own model copy and runs %d warm-up "
              "steps, then %d rounds of alternating %d-step blocks (%s time); a speedup sample is a process's median "
              "block ratio; batch %d, seq %d, %s, %d thread(s)\n",
              c.repeats, c.warmup_steps, c.rounds, c.block_steps, c.step_clock.c_str(), c.batch_size, c.seq_len,
              c.precision.c_str(), c.threads)
      << strf("- gates: speedup drop >= %.0f%% and significant (alpha %.2g); loss off by > %.2g (%.2g on another "
              "instance); throughput drop >= %.0f%% on the same instance; a trial that broke.",
              100 * c.thresholds.min_effect, c.thresholds.significance, c.thresholds.loss_tolerance,
              c.thresholds.other_instance_loss_tolerance, 100 * c.thresholds.absolute_max_drop)
      << (c.calibration ? strf(" A slower %s: its speed relative to the calibration workload (stock libtorch, "
                               "paired in the same processes) drops by the same test, gating on the same instance\n\n", c.native_backend.c_str())
                        : strf(" A risen speedup may be a slower %s: not gated (no calibration workload)\n\n",
                               c.native_backend.c_str()));
}

void write_markdown(std::ostream& out, const RegressionReport& report) {
  write_header(out, report);
  std::vector<std::vector<std::string>> rows;
  for (const auto& l : report.lines)
    rows.push_back({l.model, l.backend, l.metric, value_cell(l, l.reference), value_cell(l, l.current), change_cell(l),
                    interval_cell(l), l.has_interval ? strf("%.3g", l.p_value) : "-", verdict_cell(l), l.note});
  if (!rows.empty())
    write_markdown_table(out, {"model", "backend", "metric", "reference", "current", "change",
                               strf("%.0f%% CI", 100 * (1 - report.config.thresholds.significance)), "p", "verdict",
                               "note"},
                         rows);
  if (!report.problems.empty()) {
    out << "\nCould not compare:\n";
    for (const auto& p : report.problems) out << "- " << p << "\n";
  }
  out << "\nSpeedup is native step time over compiled step time, both measured in the same round, so a "
         "slower or busier machine cancels out. Throughput is per backend against the reference and only "
         "informative on another instance. Loss is after the same seeded steps.\n";
}

nlohmann::json report_json(const RegressionReport& report, const RegressionRun& current) {
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& l : report.lines) {
    nlohmann::json m{{"model", l.model}, {"backend", l.backend}, {"metric", l.metric}, {"reference", l.reference},
                     {"current", l.current}, {"change", l.change}, {"verdict", l.verdict}, {"note", l.note}};
    if (l.has_interval) {
      m["ci_low"] = l.ci_low;
      m["ci_high"] = l.ci_high;
      m["p_value"] = l.p_value;
    }
    metrics.push_back(m);
  }
  const auto& t = report.config.thresholds;
  return {{"schema_version", kRegressionReportSchema},
          {"verdict", report.verdict()},
          {"exit_code", report.exit_code()},
          {"reference", {{"path", report.reference_path}, {"created", report.reference_header.created},
                         {"instance", report.reference_header.instance_fingerprint}}},
          {"thresholds", {{"min_effect", t.min_effect}, {"significance", t.significance},
                          {"loss_tolerance", t.loss_tolerance},
                          {"other_instance_loss_tolerance", t.other_instance_loss_tolerance},
                          {"absolute_max_drop", t.absolute_max_drop}}},
          {"metrics", metrics},
          {"problems", report.problems},
          {"current", current}};
}

class RegressionMarkdownReporter : public Reporter<RegressionOutcome> {
 public:
  std::string format() const override { return "md"; }
  void write(std::ostream& out, const RegressionOutcome& o) const override { write_markdown(out, o.report); }
};

class RegressionJsonReporter : public Reporter<RegressionOutcome> {
 public:
  std::string format() const override { return "json"; }
  void write(std::ostream& out, const RegressionOutcome& o) const override {
    out << report_json(o.report, o.current).dump(2) << "\n";
  }
};

}  // namespace

ReporterList<RegressionOutcome> regression_reporters() {
  return reporter_list<RegressionOutcome, RegressionMarkdownReporter, RegressionJsonReporter>();
}

std::unique_ptr<Reporter<RegressionOutcome>> make_regression_reporter(const std::string& format) {
  return pick_reporter("regression report", format, regression_reporters());
}

}  // namespace tune
