// The reporters of a finished search (`tune --model`): markdown for a person, JSON (--json) for scripts such as
// scripts/side-by-side and scripts/tuner-efficiency, which keep it beside their stores.
#include "report/search_reporters.h"

#include "report/table_reporters.h"
#include "util/duration.h"
#include "util/table_format.h"

namespace tune {
namespace {

void write_outcomes(std::ostream& out, const SearchSummary& summary) {
  for (const auto& e : summary.screening) out << "- screen: " << e.backend << " " << e.precision << ": " << e.reason << "\n";
  for (const auto& b : summary.backends) {
    out << "- " << b.backend << " " << b.precision << ": ";
    if (!b.failure.empty()) out << "no result: " << b.failure;
    else out << "batch ramp ended (" << b.ramp_stop << "); learning rates: " << b.lr_stop;
    out << "; " << b.trials_run << " trials run, " << b.trials_reused << " reused from the store\n";
  }
}

// The objective in force, with the time-to-loss target when there is one.
std::string describe_objective(const SearchSummary& summary) {
  if (summary.objective != "time-to-loss")
    return "two-stage: batch size by throughput, then learning rate by loss after a fixed number of steps";
  std::string text = "time-to-loss: the batch size and learning rate reaching the target loss in the least wall time";
  for (const auto& b : summary.backends)
    if (b.time_to_loss) {
      const auto& t = *b.time_to_loss;
      text += strf("\n- %s %s: target loss %.4f (%s)", b.backend.c_str(), b.precision.c_str(), t.target_loss,
                   t.target_source.c_str());
      if (t.best)
        text += strf("; best: batch %d, lr %.2e reaches it in %d steps, %.2f s", t.best->candidate.batch_size,
                     t.best->candidate.learning_rate, t.best->steps_to_target, t.best->seconds_to_target);
    }
  return text;
}

// The recommendation for a job of `steps` compiled steps: cold, and where the row measured a warm compile apart
// (TableRow::shows_warm) and it answers otherwise, warm too.
std::string recommend_cold_and_warm(const TableRow& row, double steps, int batch) {
  const std::string cold = recommend_for_job(row.decisive(), steps, batch);
  if (!row.shows_warm()) return cold;
  const std::string warm = recommend_for_job(row.warm_amortization, steps, batch);
  return cold + (warm == cold ? "" : "; with a warm compile cache (the same model compiled before on this machine): " + warm);
}

// For --job-steps N or --job-hours H: compile or stay native, per precision row.
void write_job_recommendation(std::ostream& out, const JobLength& job, const TableRow& row) {
  const BackendResult* compiled = row.compiled_result();
  if (!row.native_result() || !compiled) return;
  const std::string where = " (" + row.precision + ")";
  if (job.steps > 0)
    out << "- for a " << job.steps << "-step job" << where << ": "
        << recommend_cold_and_warm(row, job.steps, compiled->best.batch_size) << "\n";
  if (job.hours > 0) {
    const double steps = job.hours * 3600 * compiled->best.samples_per_second / compiled->best.batch_size;
    out << "- for a " << job.hours << "-hour job" << where << ": "
        << recommend_cold_and_warm(row, steps, compiled->best.batch_size) << "\n";
  }
}

class SearchMarkdownReporter : public Reporter<SearchReport> {
 public:
  std::string format() const override { return "md"; }
  void write(std::ostream& out, const SearchReport& r) const override {
    out << "\n## tune: " << r.model << " on " << r.instance << " (searched in "
        << format_duration(r.summary.elapsed_seconds) << " of a " << format_duration(r.summary.budget_seconds)
        << " budget)\n\n";
    out << "objective: " << describe_objective(r.summary) << "\n\n";
    write_markdown_rows(out, r.table);
    out << "\n";
    write_outcomes(out, r.summary);
    for (const auto& row : r.table.rows) write_job_recommendation(out, r.job, row);
  }
};

// Per backend: the strategies, what the search spent and why it ended; with time-to-loss every trial's time.
nlohmann::json searches_json(const SearchReport& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& b : r.summary.backends) {
    nlohmann::json entry{{"backend", b.backend}, {"precision", b.precision}, {"study_id", b.study_id},
                         {"batch_tuner", r.batch_tuner}, {"lr_tuner", r.lr_tuner},
                         {"trials_run", b.trials_run}, {"trials_reused", b.trials_reused},
                         {"trial_seconds", b.trial_seconds}, {"ramp_stop", b.ramp_stop}, {"lr_stop", b.lr_stop},
                         {"failure", b.failure}, {"lr_horizon_steps", b.lr_horizon_steps},
                         {"lr_horizon_wanted", b.lr_horizon_wanted},
                         {"job_steps", b.job_steps}};
    if (b.best) {
      entry["batch_limit"] = to_string(b.best->stop.batch_limit);
      entry["lr_stop_cause"] = to_string(b.best->stop.lr_cause);
      entry["lr_edge"] = to_string(b.best->stop.lr_edge);
    }
    if (b.time_to_loss) entry["time_to_loss"] = time_to_loss_json(*b.time_to_loss);
    list.push_back(entry);
  }
  return list;
}

// Each screened pair: its samples/s at the screening batch (0 when its trial failed), kept or not, and why.
nlohmann::json screening_json(const SearchSummary& summary) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : summary.screening)
    list.push_back({{"backend", e.backend}, {"precision", e.precision}, {"status", to_string(e.result.status)},
                    {"batch_size", e.batch_size},
                    {"samples_per_second", e.result.samples_per_second}, {"kept", e.kept}, {"reason", e.reason}});
  return list;
}

class SearchJsonReporter : public Reporter<SearchReport> {
 public:
  std::string format() const override { return "json"; }
  void write(std::ostream& out, const SearchReport& r) const override {
    const nlohmann::json json{{"schema", "tune-search"}, {"schema_version", kSearchJsonSchemaVersion},
                              {"rows", table_rows_json(r.table)}, {"budget_seconds", r.summary.budget_seconds},
                              {"elapsed_seconds", r.summary.elapsed_seconds}, {"objective", r.summary.objective},
                              {"searches", searches_json(r)}, {"screening", screening_json(r.summary)}};
    out << json.dump(2) << "\n";
  }
};

}  // namespace

ReporterList<SearchReport> search_reporters() {
  return reporter_list<SearchReport, SearchMarkdownReporter, SearchJsonReporter>();
}

std::unique_ptr<Reporter<SearchReport>> make_search_reporter(const std::string& format) {
  return pick_reporter("search report", format, search_reporters());
}

}  // namespace tune
