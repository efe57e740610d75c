// The side-by-side table's reporter: one markdown row per model, precision and backend of the store's
// seq-128 studies, C++ eager and HF eager the baselines of the compiled backends' break-even.
#include "tools/side_by_side_report.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "store/export.h"
#include "tools/report_text.h"
#include "util/table_format.h"

namespace tune {
namespace {

const char* const kBackends[] = {"eager", "jit", "inductor", "hf-eager"};
const char* const kPrecisions[] = {"fp32", "bf16", "fp16"};
// Relative: dropout (p=0.1) draws differ across runtimes; a wrong step differs by far more.
constexpr double kLossTolerance = 0.02;

// The trial of `purpose` in the cell of (model, precision, backend), or null when there is none.
const SideBySideTrial* trial_of(const SideBySideStore& store, const std::string& model, const std::string& precision,
                                const std::string& backend, const std::string& purpose) {
  const auto cell = store.cells.find({model, precision, backend});
  if (cell == store.cells.end()) return nullptr;
  const auto trial = cell->second.find(purpose);
  return trial == cell->second.end() ? nullptr : &trial->second;
}

// A baseline's median step time (0 when it has no throughput trial or figure).
double baseline_step_time(const SideBySideStore& store, const std::string& model, const std::string& precision,
                          const std::string& backend) {
  const SideBySideTrial* t = trial_of(store, model, precision, backend, "throughput");
  return t ? t->result.value("step_time_median", 0.0) : 0.0;
}

std::string break_even(double overhead, double t_base, double t) {
  if (t <= 0 || t_base <= 0) return "-";
  return t >= t_base ? "never" : strf("%.0f", overhead / (t_base - t));
}

// The compile time with its parts ("99.3 (aot inductor codegen 62 + dynamo trace 11)").
std::string compile_cell(const nlohmann::json& r) {
  std::string parts;
  if (r.contains("compile_parts") && r["compile_parts"].is_object())
    for (const auto& [name, seconds] : r["compile_parts"].items()) {
      std::string words = name;
      for (char& ch : words) ch = ch == '_' ? ' ' : ch;
      parts += (parts.empty() ? "" : " + ") + strf("%s %.0f", words.c_str(), seconds.get<double>());
    }
  return strf("%.1f", r.at("compile_seconds").get<double>()) + (parts.empty() ? "" : " (" + parts + ")");
}

// The learning-rate trial's losses: its first and last, NaN when it did not run or failed.
std::pair<double, double> first_and_last_loss(const SideBySideTrial* lr) {
  if (!lr || lr->status != "ok" || !lr->result.contains("losses") || lr->result["losses"].empty()) return {kNan, kNan};
  const auto& losses = lr->result["losses"];
  return {losses.front().get<double>(), losses.back().get<double>()};
}

// C++ eager's last loss at the same precision, whatever its status (NaN without one).
double reference_loss(const SideBySideStore& store, const std::string& model, const std::string& precision) {
  const SideBySideTrial* lr = trial_of(store, model, precision, "eager", "learning_rate");
  if (!lr || !lr->result.contains("losses") || lr->result["losses"].empty()) return kNan;
  return lr->result["losses"].back().get<double>();
}

std::string failed_row(const std::string& model, const std::string& precision, const std::string& backend,
                       const SideBySideTrial* t) {
  std::string error = t ? first_code_points(t->result.value("error_message", ""), 120) : "";
  for (char& ch : error) ch = ch == '|' ? '/' : ch;
  return "| " + model + " | " + precision + " | " + backend + " | " + (t ? t->status : "missing") + ": " + error + " |";
}

std::string row(const SideBySideStore& store, const std::string& model, const std::string& precision,
                const std::string& backend) {
  const SideBySideTrial* throughput = trial_of(store, model, precision, backend, "throughput");
  if (!throughput || throughput->status != "ok") return failed_row(model, precision, backend, throughput);
  const nlohmann::json& r = throughput->result;
  const double t = r.at("step_time_median").get<double>(), overhead = r.at("compile_overhead_seconds").get<double>();
  const bool compiled = backend == "jit" || backend == "inductor";
  const auto [first, loss] = first_and_last_loss(trial_of(store, model, precision, backend, "learning_rate"));
  const double ref = reference_loss(store, model, precision);
  const bool agree = std::fabs(loss - ref) <= kLossTolerance * std::fabs(ref);
  return strf("| %s | %s | %s | %.2f (%.2f-%.2f) | %.2f | %s | %.1f | %s | %s | %.2f | %.3f | %.4f (%+.2f%%) %s |",
              model.c_str(), precision.c_str(), backend.c_str(), t, r.at("step_time_ci_low").get<double>(),
              r.at("step_time_ci_high").get<double>(), r.at("samples_per_second").get<double>(),
              compiled ? compile_cell(r).c_str() : "-", overhead,
              compiled ? break_even(overhead, baseline_step_time(store, model, precision, "eager"), t).c_str() : "-",
              backend == "inductor" ? break_even(overhead, baseline_step_time(store, model, precision, "hf-eager"), t).c_str() : "-",
              r.at("peak_memory_bytes").get<double>() / (1 << 30), unsigned_nan(first), unsigned_nan(loss),
              unsigned_nan(100 * (loss - ref) / ref), agree ? "ok" : "DIFFERS");
}

class SideBySideMarkdownReporter : public Reporter<SideBySideStore> {
 public:
  std::string format() const override { return "md"; }
  void write(std::ostream& out, const SideBySideStore& store) const override {
    std::set<std::string> models;
    for (const auto& [key, cell] : store.cells) models.insert(std::get<0>(key));
    out << "| model | precision | backend | s/step (95% CI) | samples/s | compile s (parts) | overhead s | "
           "break-even vs C++ eager | vs HF eager | peak GiB | lr trial: first loss | last loss (vs C++ eager) |\n"
        << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& model : models)
      for (const char* precision : kPrecisions)
        for (const char* backend : kBackends)
          if (store.cells.count({model, precision, backend})) out << row(store, model, precision, backend) << "\n";
    out << strf("\nLoss tolerance: %.0f%% of C++ eager's loss at the same precision (dropout draws differ).\n",
                100 * kLossTolerance);
  }
};

}  // namespace

SideBySideStore side_by_side_from_export(const nlohmann::json& export_doc) {
  SideBySideStore store;
  for (const auto& study : export_doc.at("studies")) {
    if (study.at("seq_len").get<int>() != kSideBySideSeqLen || study.at("trials").empty()) continue;
    auto& cell = store.cells[{study.at("model").get<std::string>(), study.at("precision").get<std::string>(),
                              study.at("backend").get<std::string>()}];
    for (const auto& t : study.at("trials"))  // by id: a later trial of the same purpose replaces an earlier one
      cell[t.at("spec").at("purpose").get<std::string>()] = {t.at("result").at("status").get<std::string>(),
                                                             t.at("result")};
  }
  return store;
}

SideBySideStore read_side_by_side_store(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw std::invalid_argument("store '" + path + "': no such file (scripts/side-by-side writes it)");
  const Database db(path);
  return side_by_side_from_export(export_database(db, path));
}

ReporterList<SideBySideStore> side_by_side_reporters() {
  return reporter_list<SideBySideStore, SideBySideMarkdownReporter>();
}

}  // namespace tune
