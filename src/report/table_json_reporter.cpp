// JSON reporter of the tested-models table (schema kTableJsonSchemaVersion): every backend of every row
// with its best config, what stopped its batch search, and the trial curves the HTML page draws.
#include <nlohmann/json.hpp>

#include "report/table_reporters.h"
#include "trial/backend_registry.h"
#include "trial/data_parallel_figures.h"

namespace tune {
namespace {

nlohmann::json instance_json(const TableInstance& i) {
  const InstanceHardware& h = i.hardware;
  return {{"name", i.name}, {"device", h.device}, {"device_name", h.device_name}, {"memory", h.memory_text()},
          {"threads", h.threads}, {"count", h.device_count}, {"fingerprint", h.fingerprint()}};
}

nlohmann::json curves_json(const BackendResult& r) {
  nlohmann::json batch = nlohmann::json::array(), lr = nlohmann::json::array();
  for (const auto& p : r.batch_curve)
    batch.push_back({{"batch_size", p.batch_size}, {"status", to_string(p.status)},
                     {"samples_per_second", p.samples_per_second}, {"peak_memory_bytes", p.peak_memory_bytes},
                     {"compile_overhead_seconds", p.compile_overhead_seconds}});
  for (const auto& p : r.lr_curve)
    lr.push_back({{"learning_rate", p.learning_rate}, {"status", to_string(p.status)}, {"score_loss", p.score_loss},
                  {"seeds", p.seeds}, {"train_steps", p.train_steps}, {"held_out_rows", p.held_out_rows},
                  {"held_out_accuracy", p.held_out_rows > 0 ? nlohmann::json(p.held_out_accuracy) : nullptr}});
  return {{"batch_sizes", batch}, {"learning_rates", lr}};
}

// The next-best rate and its loss's margin over the chosen rate's (null when only one rate ran).
nlohmann::json runner_up_json(const BackendResult& r) {
  const auto second = r.runner_up();
  if (!second) return nullptr;
  return {{"learning_rate", second->learning_rate}, {"score_loss", second->score_loss},
          {"margin", r.runner_up_margin()}, {"seeds", second->seeds}};
}

// The chosen rate's accuracy on its held-out rows (null where it was scored on the training loss).
nlohmann::json held_out_accuracy_json(const BackendResult& r) {
  const LearningRatePoint* chosen = r.chosen_rate_point();
  return chosen && chosen->held_out_rows > 0 ? nlohmann::json(chosen->held_out_accuracy) : nlohmann::json(nullptr);
}

// The steps the chosen rate was ranked after (null when no learning-rate trial at the chosen batch is stored).
nlohmann::json lr_horizon_json(const BackendResult& r) {
  const LearningRatePoint* chosen = r.chosen_rate_point();
  return chosen ? nlohmann::json(chosen->train_steps) : nlohmann::json(nullptr);
}

// Its best config over the confirmation's rounds (null under two): how many ran, their geometric mean samples/s and
// the MFU at it; what the table's samples/s cell shows in a row with a paired verdict.
nlohmann::json rounds_json(const TableRow& row, const BackendResult& r) {
  const auto rounds = r.rounds_speed();
  if (!rounds) return nullptr;
  const Mfu mfu = backend_mfu_at(row, r, rounds->samples_per_second);
  return {{"rounds", rounds->rounds}, {"samples_per_second", rounds->samples_per_second},
          {"mfu", mfu.of_peak > 0 ? nlohmann::json(mfu.of_peak) : nlohmann::json(nullptr)}};
}

// Each observer trial's figures: the step time with the tool over without (geometric mean, 95% CI, rounds,
// verdict with the tool: "slower", "faster", "no difference", "unconfirmed"), its status, and a compiled step's graph counts.
nlohmann::json observers_json(const BackendResult& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& o : r.observers)
    list.push_back({{"observer", o.observer}, {"batch_size", r.observer_batch},
                    {"step_time_ratio", o.step_time.ratio},
                    {"step_time_ratio_ci95", {o.step_time.ci_low, o.step_time.ci_high}},
                    {"rounds", o.step_time.rounds}, {"verdict", observer_verdict(o)},
                    {"status", o.status}, {"graphs_without", o.graphs_bare}, {"graphs_with", o.graphs_observed},
                    {"what_it_did", o.summary}, {"caveat", o.caveat}, {"said", describe_observer_cost(o)}});
  return list;
}

// A data-parallel row's figures at the best batch (null for one process): ranks, the batch per rank, the scaling
// efficiency with its interval, the exposed communication's share of a step, each rank's peak memory, and (the
// Python worker's DDP) what DDP costs without its communication.
nlohmann::json data_parallel_json(const BackendResult& r) {
  const DataParallelPart& d = r.data_parallel;
  if (d.ranks < 2) return nullptr;
  const PairedRatio e = scaling_efficiency(d), wrapping = ddp_wrapping_cost(d);
  const nlohmann::json without_comm =
      wrapping.rounds < 1 ? nlohmann::json(nullptr)
                          : nlohmann::json{{"ratio", wrapping.ratio}, {"ci95", {wrapping.ci_low, wrapping.ci_high}},
                                           {"rounds", wrapping.rounds}};
  return {{"ranks", d.ranks}, {"per_rank_batch", d.per_rank_batch}, {"comm_backend", d.comm_backend},
          {"buckets", d.buckets}, {"bucket_cap_mb", d.bucket_cap_mb}, {"scaling_efficiency", e.ratio},
          {"scaling_efficiency_ci95", {e.ci_low, e.ci_high}}, {"rounds", e.rounds},
          {"exposed_comm_share", exposed_comm_share(d)}, {"rank_peak_memory_bytes", d.rank_peak_memory_bytes},
          {"ddp_without_comm", without_comm}, {"said", describe_data_parallel(d)}};
}

nlohmann::json backend_json(const TableRow& row, const BackendResult& r) {
  const BestConfig& b = r.best;
  const Mfu mfu = backend_mfu(row, r);
  return {{"backend", r.backend}, {"batch_size", b.batch_size},
          {"batch_limit", r.screened_out.empty() ? to_string(b.stop.batch_limit) : "screened_out"},  // as in the CSV
          {"batch_capped_by_range", b.batch_capped_by_range()},
          {"limit_batch_size", b.stop.limit_batch_size ? nlohmann::json(b.stop.limit_batch_size) : nlohmann::json(nullptr)},
          {"learning_rate", b.learning_rate}, {"learning_rate_edge", to_string(b.stop.lr_edge)},
          {"learning_rate_batch_size", r.rate_batch_size ? r.rate_batch_size : b.batch_size},
          {"batch_moved_by_rounds_from", r.moved_by_rounds_from ? nlohmann::json(r.moved_by_rounds_from) : nullptr},
          {"learning_rate_learned_share", r.learned_share() ? nlohmann::json(*r.learned_share()) : nullptr},
          {"learning_rates_separated", r.rates_separated()},
          {"learning_rate_held_out_accuracy", held_out_accuracy_json(r)},
          {"learning_rate_tie_with", r.rate_tie() ? nlohmann::json(r.runner_up()->learning_rate) : nullptr},
          {"batch_noise_share", r.batch_noise_share() ? nlohmann::json(*r.batch_noise_share()) : nullptr},
          {"batch_sizes_within_noise", r.batches_within_noise()},
          {"samples_per_second", b.samples_per_second}, {"confirmation_rounds", rounds_json(row, r)},
          {"step_time_seconds", b.step_time}, {"step_time_ci95", {b.step_time_ci_low, b.step_time_ci_high}},
          {"compile_overhead_seconds", b.compile_overhead_seconds}, {"peak_memory_bytes", b.peak_memory_bytes},
          {"memory_limit_bytes", r.memory_limit_bytes}, {"lr_score_loss", b.lr_score_loss},
          {"flops_per_step", b.flops_per_step}, {"mfu", mfu.of_peak},
          {"mfu_datasheet", mfu.of_datasheet > 0 ? nlohmann::json(mfu.of_datasheet) : nullptr},
          {"trials_run", b.trials_run},
          {"learning_rate_runner_up", runner_up_json(r)}, {"lr_horizon_steps", lr_horizon_json(r)},
          {"lr_horizon_wanted", b.stop.lr_horizon_wanted ? nlohmann::json(b.stop.lr_horizon_wanted) : nullptr},
          {"screened_out", r.screened_out.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.screened_out)},
          {"curves", curves_json(r)}, {"observers", observers_json(r)}, {"data_parallel", data_parallel_json(r)}};
}

// What the row's MFU is taken against: its source (measured, datasheet, estimate or none), FLOP/s (null when
// unknown), how it was measured, and a GPU's datasheet peak beside a measured one.
nlohmann::json peak_json(const RowPeak& p) {
  const auto number_if = [](double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"source", to_string(p.source)}, {"flops_per_second", number_if(p.flops)},
          {"method", p.method.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.method)},
          {"measured_at", p.measured_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.measured_at)},
          {"datasheet_flops_per_second", number_if(p.datasheet_flops)}};
}

// The paired verdict (null without both sides): the confirmation's rounds, their speed-up and its 95% CI.
nlohmann::json paired_json(const TableRow& row) {
  if (!row.native || !row.compiled) return nullptr;
  const PairedRatio& p = row.confirmed;
  const Amortization& a = row.confirmed_amortization;
  const auto number_if = [](bool given, double v) { return given ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"verdict", to_string(p.verdict)}, {"rounds", p.rounds}, {"speedup", number_if(p.rounds, p.ratio)},
          {"ci_low", number_if(p.rounds, p.ci_low)}, {"ci_high", number_if(p.rounds, p.ci_high)},
          {"worth_compiling", a.worth_compiling}, {"break_even_batch_size", number_if(a.worth_compiling, a.batch_size)},
          {"break_even_steps", number_if(a.worth_compiling, a.break_even_steps)},
          {"break_even_steps_ci", a.worth_compiling ? nlohmann::json({row.break_even_steps_low, row.break_even_steps_high})
                                                    : nlohmann::json(nullptr)},
          {"break_even_seconds", number_if(a.worth_compiling, a.break_even_seconds)}};
}

// Compiled over native at one batch (the larger best's) from the confirmation's rounds there (null without them).
nlohmann::json paired_same_batch_json(const TableRow& row) {
  const PairedRatio& p = row.confirmed_equal_batch;
  if (!row.compiled || p.verdict == PairedVerdict::unconfirmed) return nullptr;
  return {{"verdict", to_string(p.verdict)}, {"rounds", p.rounds}, {"speedup", p.ratio}, {"ci_low", p.ci_low},
          {"ci_high", p.ci_high}, {"batch_size", row.confirmed_equal_batch_size}};
}

// The decisive comparison with a warm compile (TableRow::warm_amortization), null where none was measured; for a
// backend without a persistent cache the figures equal the cold ones (it compiles again in every job).
nlohmann::json warm_json(const TableRow& row) {
  if (!row.warm_measured) return nullptr;
  const BackendResult* c = row.compiled_result();
  const Amortization& w = row.warm_amortization;
  return {{"persistent_compile_cache", c && keeps_compile_cache(c->backend)},
          {"net_compile_overhead_seconds", row.warm_compile_overhead_seconds}, {"worth_compiling", w.worth_compiling},
          {"break_even_steps", w.break_even_steps}, {"break_even_seconds", w.break_even_seconds},
          {"break_even_batch_size", w.batch_size}};
}

// The row's other compiled backends against native (TableRow::other_compiles), from the search's trials.
nlohmann::json other_compiles_json(const TableRow& row) {
  nlohmann::json list = nlohmann::json::array();
  for (const OtherCompile& o : row.other_compiles) {
    const Amortization& a = o.amortization;
    list.push_back({{"backend", o.backend}, {"batch_size", a.batch_size}, {"speedup", a.speedup},
                    {"net_compile_overhead_seconds", o.net_compile_overhead_seconds},
                    {"cold_overhead_measured", o.cold_overhead_measured}, {"worth_compiling", a.worth_compiling},
                    {"break_even_steps", a.break_even_steps}, {"break_even_seconds", a.break_even_seconds}});
  }
  return list;
}

nlohmann::json row_json(const TableRow& row) {
  nlohmann::json backends = nlohmann::json::object();
  for (const auto& b : row.backends) backends[b.backend] = backend_json(row, b);
  const auto* n = row.native_result();
  const auto* c = row.compiled_result();
  const Amortization& a = row.amortization;
  return {{"model", row.model}, {"libtorch", row.libtorch_version}, {"tune_version", row.tune_version},
          {"instance", instance_json(row.instance)}, {"precision", row.precision},
          {"step_options", row.step_options}, {"seq_len", row.seq_len},
          {"native", n ? backend_json(row, *n) : nlohmann::json(nullptr)},
          {"compiled_backend", c ? c->backend : ""}, {"compiled", c ? backend_json(row, *c) : nlohmann::json(nullptr)},
          {"mfu_peak", peak_json(row.peak)},
          {"backends", backends}, {"speedup", a.speedup}, {"speedup_batch_size", a.batch_size},
          {"speedup_best_vs_best", row.best_vs_best_speedup}, {"paired", paired_json(row)},
          {"paired_same_batch", paired_same_batch_json(row)},
          {"batch_cut", row.batch_cut.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.batch_cut)},
          {"net_compile_overhead_seconds", row.compile_overhead_seconds},
          {"worth_compiling", a.worth_compiling},
          {"break_even_steps", a.break_even_steps}, {"break_even_seconds", a.break_even_seconds},
          {"cold_overhead_measured", row.cold_overhead_measured}, {"warm", warm_json(row)},
          {"other_compiles", other_compiles_json(row)},
          {"trials_run", row.trials_run}, {"trial_seconds", row.trial_seconds}, {"sittings", row.sittings},
          {"search_budget_seconds", row.search_budget_seconds ? nlohmann::json(row.search_budget_seconds) : nullptr},
          {"budget_cut", row.budget_cut()}, {"start", row.start}, {"data", row.data}, {"tiny", row.tiny},
          {"first_trial_at", row.first_trial_at},
          {"last_trial_at", row.last_trial_at}};
}

class JsonTableReporter : public TableReporter {
 public:
  std::string format() const override { return "json"; }
  void write(std::ostream& out, const TestedModelsTable& table) const override {
    const nlohmann::json doc{{"schema", "tune-tested-models"}, {"schema_version", kTableJsonSchemaVersion},
                             {"source", table.source}, {"rows", table_rows_json(table)}};
    out << doc.dump(2) << "\n";
  }
};

}  // namespace

nlohmann::json table_rows_json(const TestedModelsTable& table) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : table.rows) rows.push_back(row_json(row));
  return rows;
}

std::unique_ptr<TableReporter> make_table_json_reporter() { return std::make_unique<JsonTableReporter>(); }

}  // namespace tune
