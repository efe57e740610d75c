// CSV reporter of the tested-models table (RFC 4180 quoting: a field with a comma, quote or line break is quoted,
// quotes doubled). One flat line per row, plain numbers and units in the column names, for spreadsheets.
#include "report/table_reporters.h"
#include "util/table_format.h"

namespace tune {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string number(double value) { return strf("%.6g", value); }

// The columns one backend contributes, empty when the row lacks it; its MFU against the row's peak (mfu_peak).
std::vector<std::string> backend_fields(const TableRow& row, const BackendResult* r) {
  if (!r) return std::vector<std::string>(11);
  const StopReasons& stop = r->best.stop;
  const double mfu = backend_mfu(row, *r).of_peak;
  const auto rounds = r->rounds_speed();  // the confirmation's, empty under two
  return {r->backend, std::to_string(r->best.batch_size),
          r->screened_out.empty() ? to_string(stop.batch_limit) : "screened_out",
          stop.limit_batch_size ? std::to_string(stop.limit_batch_size) : "", number(r->best.learning_rate),
          number(r->best.samples_per_second), std::to_string(r->best.peak_memory_bytes),
          number(r->best.compile_overhead_seconds), mfu > 0 ? number(mfu) : "",
          rounds ? std::to_string(rounds->rounds) : "", rounds ? number(rounds->samples_per_second) : ""};
}

std::vector<std::string> header() {
  std::vector<std::string> h{"model", "libtorch", "tune_version", "instance", "device", "device_name",
                             "device_memory", "device_count", "threads", "precision", "step_options", "seq_len"};
  for (const std::string side : {"native", "compiled"})
    for (const std::string field : {"backend", "batch_size", "batch_limit", "limit_batch_size", "learning_rate",
                                    "samples_per_second", "peak_memory_bytes", "compile_overhead_seconds", "mfu",
                                    "rounds", "rounds_samples_per_second"})
      h.push_back(side + "_" + field);
  for (const char* tail : {"speedup", "speedup_batch_size", "speedup_best_vs_best", "paired_verdict",
                           "paired_speedup", "paired_ci_low", "paired_ci_high", "paired_rounds", "paired_break_even_steps",
                           "worth_compiling",
                           "break_even_steps", "break_even_seconds", "trials_run", "trial_seconds",
                           "search_budget_seconds", "budget_cut", "tiny", "start", "data", "first_trial_at",
                           "last_trial_at", "mfu_peak", "mfu_peak_flops"})
    h.push_back(tail);
  return h;
}

std::vector<std::string> fields(const TableRow& row) {
  const InstanceHardware& h = row.instance.hardware;
  std::vector<std::string> f{row.model,     row.libtorch_version, row.tune_version, row.instance.name,
                             h.device,      h.device_name,        h.memory_text(),  std::to_string(h.device_count),
                             std::to_string(h.threads), row.precision, row.step_options, std::to_string(row.seq_len)};
  for (const auto* r : {row.native_result(), row.compiled_result()}) {
    const auto side = backend_fields(row, r);
    f.insert(f.end(), side.begin(), side.end());
  }
  const Amortization& a = row.amortization;
  const bool both = row.native && row.compiled;
  f.push_back(a.batch_size ? number(a.speedup) : "");
  f.push_back(a.batch_size ? std::to_string(a.batch_size) : "");
  f.push_back(both ? number(row.best_vs_best_speedup) : "");
  const PairedRatio& p = row.confirmed;
  const bool paired = both && p.rounds > 0;
  f.push_back(both ? to_string(p.verdict) : "");
  for (double v : {p.ratio, p.ci_low, p.ci_high}) f.push_back(paired ? number(v) : "");
  f.push_back(both ? std::to_string(p.rounds) : "");
  f.push_back(row.confirmed_amortization.worth_compiling ? number(row.confirmed_amortization.break_even_steps) : "");
  f.push_back(a.batch_size ? (a.worth_compiling ? "true" : "false") : "");
  f.push_back(a.worth_compiling ? number(a.break_even_steps) : "");
  f.push_back(a.worth_compiling ? number(a.break_even_seconds) : "");
  f.push_back(std::to_string(row.trials_run));
  f.push_back(number(row.trial_seconds));
  f.push_back(row.search_budget_seconds > 0 ? number(row.search_budget_seconds) : "");
  f.push_back(row.budget_cut() ? "true" : "false");
  f.push_back(row.tiny ? "true" : "false");
  f.push_back(row.start);
  f.push_back(row.data);
  f.push_back(row.first_trial_at);
  f.push_back(row.last_trial_at);
  f.push_back(to_string(row.peak.source));  // measured, datasheet, estimate or none
  f.push_back(row.peak.flops > 0 ? number(row.peak.flops) : "");
  return f;
}

void write_line(std::ostream& out, const std::vector<std::string>& values) {
  for (size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << csv_field(values[i]);
  out << "\n";
}

class CsvTableReporter : public TableReporter {
 public:
  std::string format() const override { return "csv"; }
  void write(std::ostream& out, const TestedModelsTable& table) const override {
    write_line(out, header());
    for (const auto& row : table.rows) write_line(out, fields(row));
  }
};

}  // namespace

std::unique_ptr<TableReporter> make_table_csv_reporter() { return std::make_unique<CsvTableReporter>(); }

}  // namespace tune
