// Builds and renders the native-vs-compiled comparison from the store's best configs.
// One code path serves `tune --model` (its own rows) and `tune table` (all rows).
#include "report/summary_report.h"

#include <map>
#include <tuple>

#include "instance/instance.h"
#include "util/duration.h"
#include "util/table_format.h"

namespace tune {
namespace {

using GroupKey = std::tuple<std::string, std::string, std::string, std::string, int, std::string>;

std::string batch_cell(const std::optional<BestConfig>& b) {
  if (!b) return "-";
  return std::to_string(b->batch_size) + (b->batch_capped_by_range ? "*" : "");
}

std::string cell(const std::optional<BestConfig>& b, const char* format, double BestConfig::*field) {
  return b ? strf(format, (*b).*field) : "-";
}

std::string memory_cell(const std::optional<BestConfig>& b) { return b ? format_bytes(b->peak_memory_bytes) : "-"; }

// Throughput with its model FLOPs utilization, when the instance's peak is known.
std::string throughput_cell(const std::optional<BestConfig>& b) {
  if (!b) return "-";
  return strf("%.2f", b->samples_per_second) + (b->mfu > 0 ? strf(" (MFU %.1f%%)", 100 * b->mfu) : "");
}

// "fp32", or "fp32 (attention=sdpa,optimizer=fused)" when the steps ran with non-default options.
std::string precision_cell(const StudyKey& k) {
  return k.step_options == kDefaultStepOptions ? k.precision : k.precision + " (" + k.step_options + ")";
}

std::vector<std::string> markdown_cells(const ComparisonRow& r) {
  const bool has_compiled = r.compiled.has_value();
  return {r.key.model, r.key.instance, precision_cell(r.key), std::to_string(r.key.seq_len),
          batch_cell(r.native), has_compiled ? batch_cell(r.compiled) + " (" + r.compiled_backend + ")" : "-",
          cell(r.native, "%.1e", &BestConfig::learning_rate), cell(r.compiled, "%.1e", &BestConfig::learning_rate),
          throughput_cell(r.native), throughput_cell(r.compiled),
          has_compiled && r.native ? strf("%.2fx", r.amortization.speedup) : "-",
          cell(r.compiled, "%.1f s", &BestConfig::compile_overhead_seconds),
          has_compiled && r.native ? describe_break_even(r.amortization) : "-",
          memory_cell(r.native), memory_cell(r.compiled)};
}

nlohmann::json best_json(const std::optional<BestConfig>& b) {
  if (!b) return nullptr;
  return {{"batch_size", b->batch_size}, {"batch_capped_by_range", b->batch_capped_by_range},
          {"learning_rate", b->learning_rate}, {"samples_per_second", b->samples_per_second},
          {"step_time_seconds", b->step_time}, {"compile_overhead_seconds", b->compile_overhead_seconds},
          {"peak_memory_bytes", b->peak_memory_bytes}, {"lr_score_loss", b->lr_score_loss},
          {"trials_run", b->trials_run}, {"step_time_ci95", {b->step_time_ci_low, b->step_time_ci_high}},
          {"flops_per_step", b->flops_per_step}, {"mfu", b->mfu}};
}

nlohmann::json backends_json(const ComparisonRow& r) {
  nlohmann::json all = nlohmann::json::object();
  for (const auto& [backend, best] : r.backends) all[backend] = best_json(best);
  return all;
}

}  // namespace

std::vector<ComparisonRow> comparison_rows(const std::vector<BestRow>& rows) {
  std::map<GroupKey, ComparisonRow> groups;
  for (const auto& row : rows) {
    const GroupKey g{row.key.model,     row.key.instance, row.key.instance_fingerprint,
                     row.key.precision, row.key.seq_len,  row.key.step_options};
    ComparisonRow& c = groups[g];
    c.backends[row.key.backend] = row.best;
    if (c.key.model.empty() || row.key.backend == "eager") c.key = row.key;
    if (row.updated_at > c.updated_at) c.updated_at = row.updated_at;
    if (row.key.backend == "eager") {
      c.native = row.best;
    } else if (row.key.backend == "hf-eager") {
      // A reference (HF transformers eager in Python): neither native nor compiled; listed in c.backends.
    } else if (!c.compiled || row.best.samples_per_second > c.compiled->samples_per_second) {
      c.compiled = row.best;
      c.compiled_backend = row.key.backend;
    }
  }
  std::vector<ComparisonRow> out;
  for (auto& [key, c] : groups) {
    if (c.native && c.compiled)
      c.amortization = amortize(c.native->samples_per_second, c.compiled->samples_per_second, c.compiled->batch_size,
                                c.compiled->compile_overhead_seconds);
    out.push_back(c);
  }
  return out;
}

void write_comparison_markdown(std::ostream& out, const std::vector<ComparisonRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rows) cells.push_back(markdown_cells(r));
  write_markdown_table(out,
                       {"model", "instance", "precision", "seq", "batch native", "batch compiled", "lr native",
                        "lr compiled", "samples/s native", "samples/s compiled", "speedup", "compile overhead",
                        "break-even", "peak mem native", "peak mem compiled"},
                       cells);
  for (const auto& r : rows)
    if ((r.native && r.native->batch_capped_by_range) || (r.compiled && r.compiled->batch_capped_by_range)) {
      out << "\n* largest batch size tested: capped by the search range, not by memory.\n";
      break;
    }
}

nlohmann::json comparison_json(const std::vector<ComparisonRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : rows) {
    list.push_back({{"model", r.key.model}, {"instance", r.key.instance},
                    {"instance_fingerprint", r.key.instance_fingerprint}, {"libtorch", r.key.libtorch_version},
                    {"tune_version", r.key.tune_version}, {"precision", r.key.precision}, {"seq_len", r.key.seq_len},
                    {"step_options", r.key.step_options}, {"backends", backends_json(r)},
                    {"native", best_json(r.native)}, {"compiled_backend", r.compiled_backend},
                    {"compiled", best_json(r.compiled)}, {"speedup", r.amortization.speedup},
                    {"worth_compiling", r.amortization.worth_compiling},
                    {"break_even_steps", r.amortization.break_even_steps},
                    {"break_even_seconds", r.amortization.break_even_seconds}, {"updated_at", r.updated_at}});
  }
  return {{"schema_version", kReportJsonSchemaVersion}, {"rows", list}};
}

}  // namespace tune
