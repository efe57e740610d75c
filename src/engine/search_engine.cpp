// The search loop: per backend, stage 1 ramps the batch size by throughput, stage 2 sweeps the
// learning rate at that batch by loss. Finished trials are reused from the store, new ones committed.
#include "engine/search_engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "models/model_flops.h"
#include "trial/backend_label.h"
#include "tuners/tuner_registry.h"
#include "util/duration.h"
#include "util/table_format.h"

namespace tune {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string describe_result(const TrialResult& r) {
  if (!r.ok()) return to_string(r.status) + " (" + r.error_stage + ": " + r.error_message.substr(0, 160) + ")";
  return strf("ok, %.2f samples/s, step %.3f s, loss %.3f, peak %.2f GiB", r.samples_per_second, r.step_time_median,
              r.score_loss, r.peak_memory_bytes / 1073741824.0);
}

// Compile overhead with its parts, so a user sees whether tracing, the first run or warm-up dominates.
std::string describe_overhead(const TrialSpec& spec, const TrialResult& r) {
  return strf("tune: compile overhead %.2f s = compile %.2f s + first step %.2f s + %d more warm-up steps %.2f s"
              " - %d x steady step %.3f s (95%% CI %.3f-%.3f s, CV %.1f%%; %s)",
              r.compile_overhead_seconds, r.compile_seconds, r.first_step_seconds, spec.warmup_steps - 1,
              r.later_warmup_seconds, spec.warmup_steps, r.step_time_median, r.step_time_ci_low,
              r.step_time_ci_high, 100 * r.step_time_cv, r.steady_state_stop.c_str());
}

}  // namespace

// One stage of one backend: its study, its deadline and what it cost.
struct SearchEngine::Stage {
  std::string backend;
  std::string precision;
  TrialPurpose purpose;
  int64_t study_id;
  double deadline;            // seconds since the search started
  double last_trial_seconds;  // the latest new trial's wall time, to predict the next one
  const SearchRequest* request;
  BackendOutcome* outcome;
  std::map<int, TrialResult> fitting = {};  // throughput trials that ran, by batch (time-to-loss uses them)
  int smallest_failed = 0;                  // the smallest batch whose throughput trial failed (0: none)
};

// What the search spent, and the throughput trials the time-to-loss stage reads step times from.
void SearchEngine::note_cost(Stage& stage, const TrialSpec& spec, const TrialResult& result) {
  stage.outcome->trial_seconds += result.wall_seconds;
  if (spec.purpose != TrialPurpose::throughput) return;
  if (result.ok()) stage.fitting[spec.batch_size] = result;
  else if (stage.smallest_failed == 0 || spec.batch_size < stage.smallest_failed) stage.smallest_failed = spec.batch_size;
}

SearchEngine::SearchEngine(Database& db, TrialExecutor executor, SearchSettings settings, std::ostream& progress)
    : db_(db), executor_(std::move(executor)), settings_(std::move(settings)), progress_(progress) {}

double SearchEngine::elapsed() const { return now_seconds() - start_; }

SearchSummary SearchEngine::run(const SearchRequest& request, double budget_seconds) {
  start_ = now_seconds();
  budget_ = budget_seconds;
  SearchSummary summary;
  summary.budget_seconds = budget_seconds;
  summary.objective = settings_.objective;
  const size_t searches = request.backends.size() * request.precisions.size();
  for (const auto& precision : request.precisions)
    for (const auto& backend : request.backends) {
      // Each search gets an equal share of what is left, so time one saves passes to the next.
      const double share = (budget_ - elapsed()) / static_cast<double>(searches - summary.backends.size());
      summary.backends.push_back(search_backend(request, backend, precision, share));
    }
  summary.elapsed_seconds = elapsed();
  return summary;
}

StudyKey SearchEngine::study_key(const SearchRequest& r, const std::string& backend,
                                 const std::string& precision) const {
  return {r.model.name, r.model.config_hash(), r.instance.name, r.instance.fingerprint(), r.libtorch_version,
          TUNE_VERSION, backend, precision, r.seq_len, "attention=" + r.attention + ",optimizer=" + r.optimizer};
}

TrialSpec SearchEngine::make_spec(const Stage& stage, const Candidate& c) const {
  const SearchRequest& r = *stage.request;
  const TrialPurpose purpose = stage.purpose;
  TrialSpec s;
  s.model = r.model;
  apply_backend_label(s, stage.backend);  // inductor:MODE:dynamic sets the compile knobs too
  s.precision = stage.precision;
  s.attention = r.attention;
  s.optimizer = r.optimizer;
  s.purpose = purpose;
  s.seq_len = r.seq_len;
  s.batch_size = c.batch_size;
  s.learning_rate = c.learning_rate;
  s.seed = r.seed;
  s.warmup_steps = settings_.warmup_steps;
  s.min_measure_steps = settings_.min_measure_steps;
  s.max_measure_steps = settings_.max_measure_steps;
  s.measure_seconds = settings_.measure_seconds;
  s.ci_halfwidth = settings_.ci_halfwidth;
  // asha's rungs are shorter; a time-to-loss trial's length depends on its batch
  const int steps = c.train_steps > 0 ? c.train_steps : settings_.lr_train_steps;
  s.train_steps = purpose == TrialPurpose::learning_rate ? steps : 0;
  s.threads = r.instance.threads;
  s.device = r.instance.device;
  s.memory_limit_bytes = static_cast<int64_t>(r.instance.memory_bytes * settings_.memory_fraction);
  s.corpus_path = r.corpus_path;
  s.tokenizer_dir = r.tokenizer_dir;
  s.dataset_path = r.dataset_path;
  s.weights_dir = r.weights_dir;
  s.timeout_seconds = settings_.trial_timeout_seconds;
  return s;
}

TrialResult SearchEngine::measure(Stage& stage, const TrialSpec& spec) {
  const std::string head = strf("[%s %s] %s batch %d, lr %.1e", stage.backend.c_str(), stage.precision.c_str(),
                                to_string(spec.purpose).c_str(), spec.batch_size, spec.learning_rate);
  if (auto stored = db_.find_trial(stage.study_id, spec.config_key())) {
    ++stage.outcome->trials_reused;
    note_cost(stage, spec, stored->result);
    progress_ << head << ": reused from the store: " << describe_result(stored->result) << "\n" << std::flush;
    return stored->result;
  }
  progress_ << head << " ... " << std::flush;
  const std::string dir = strf("%s/study-%lld/%s", stage.request->runs_dir.c_str(),
                               static_cast<long long>(stage.study_id), spec.config_key().c_str());
  TrialResult result = executor_(spec, dir);
  db_.record_trial(stage.study_id, spec, result, dir);
  ++stage.outcome->trials_run;
  stage.last_trial_seconds = result.wall_seconds;
  note_cost(stage, spec, result);
  if (result.ok() && spec.backend != "eager" && spec.purpose == TrialPurpose::throughput)
    progress_ << "\ntune: compiled training step (backend=" << spec.backend << ") in "
              << strf("%.2f s", result.compile_seconds) << ": " << result.compile_info << "\n"
              << describe_overhead(spec, result) << "\n  -> ";
  for (const auto& warning : result.warnings) progress_ << "\ntune: warning in the step: " << warning;
  progress_ << describe_result(result) << " [" << format_duration(result.wall_seconds) << "; elapsed "
            << format_duration(elapsed()) << " of " << format_duration(budget_) << "]\n" << std::flush;
  return result;
}

std::optional<std::pair<Candidate, TrialResult>> SearchEngine::run_stage(Tuner& tuner, Stage& stage) {
  bool first = true;
  while (auto candidate = tuner.ask()) {
    const TrialPurpose purpose = stage.purpose;
    const TrialSpec spec = make_spec(stage, *candidate);
    const bool stored = db_.find_trial(stage.study_id, spec.config_key()).has_value();
    // A ramp trial at double the batch takes about twice as long as the last one.
    const double scale = purpose == TrialPurpose::throughput ? 2.0 : 1.0;
    if (!first && !stored && elapsed() + scale * stage.last_trial_seconds > stage.deadline) {
      const std::string why = strf("budget: the next trial (~%s) does not fit the %s left", 
                                   format_duration(scale * stage.last_trial_seconds).c_str(),
                                   format_duration(std::max(0.0, stage.deadline - elapsed())).c_str());
      progress_ << "[" << stage.backend << " " << stage.precision << "] " << to_string(purpose) << " stage stopped: " << why << "\n";
      return tuner.best() ? tuner.best() : std::nullopt;
    }
    tuner.tell(*candidate, measure(stage, spec));
    first = false;
  }
  return tuner.best();
}

BestConfig SearchEngine::best_config(const SearchRequest& request, const Stage& stage,
                                     const std::pair<Candidate, TrialResult>& ramp, bool capped,
                                     const std::optional<std::pair<Candidate, TrialResult>>& lr) const {
  const TrialResult& t = ramp.second;
  BestConfig best{ramp.first.batch_size, capped, lr ? lr->first.learning_rate : ramp.first.learning_rate,
                  t.samples_per_second, t.step_time_median, t.compile_overhead_seconds, t.peak_memory_bytes,
                  lr ? lr->second.score_loss : 0.0, static_cast<int>(db_.trials(stage.study_id).size())};
  best.step_time_ci_low = t.step_time_ci_low;
  best.step_time_ci_high = t.step_time_ci_high;
  best.flops_per_step = t.flops_per_step;
  best.mfu = model_flops_utilization(t.flops_per_step, t.step_time_median,
                                     request.instance.peak.for_precision(stage.precision));
  return best;
}

// Stage 1's space: powers of two up to the range maximum, trained at the ramp's learning rate.
TunerSpace SearchEngine::batch_space(const SearchRequest& request) const {
  TunerSpace space;
  space.objective = StageObjective::throughput;
  space.min_batch_size = settings_.min_batch_size;
  space.max_batch_size = settings_.max_batch_size;
  space.reference_learning_rate = settings_.ramp_learning_rate;
  space.memory_limit_bytes = static_cast<int64_t>(request.instance.memory_bytes * settings_.memory_fraction);
  space.max_trials = settings_.max_trials;
  if (settings_.tuner_options_for == settings_.batch_tuner) space.options = settings_.tuner_options;
  if (settings_.batch_tuner == "batch_ramp" && !space.options.count("min_throughput_gain"))
    space.options["min_throughput_gain"] = settings_.min_throughput_gain;
  return space;
}

// Stage 2's space: the chosen batch, the configured learning rates, full-length trials of lr_train_steps.
TunerSpace SearchEngine::lr_space(int batch_size) const {
  TunerSpace space;
  space.objective = StageObjective::loss;
  space.min_batch_size = space.max_batch_size = batch_size;
  space.learning_rates = settings_.learning_rates;
  space.min_learning_rate = *std::min_element(settings_.learning_rates.begin(), settings_.learning_rates.end());
  space.max_learning_rate = *std::max_element(settings_.learning_rates.begin(), settings_.learning_rates.end());
  space.train_steps = settings_.lr_train_steps;
  space.max_trials = settings_.max_trials;
  if (settings_.tuner_options_for == settings_.lr_tuner) space.options = settings_.tuner_options;
  // A trial always runs its warm-up steps plus one, so a shorter first rung would only repeat the next.
  if (settings_.lr_tuner == "asha" && !space.options.count("min_steps"))
    space.options["min_steps"] = std::min(settings_.lr_train_steps, settings_.warmup_steps + 1);
  return space;
}

BackendOutcome SearchEngine::search_backend(const SearchRequest& request, const std::string& backend,
                                            const std::string& precision, double backend_seconds) {
  BackendOutcome outcome;
  outcome.backend = backend;
  outcome.precision = precision;
  const int64_t study = db_.ensure_study(study_key(request, backend, precision));
  const double backend_end = elapsed() + backend_seconds;
  Stage stage{backend, precision, TrialPurpose::throughput, study,
              elapsed() + settings_.ramp_budget_share * backend_seconds, 0, &request, &outcome};

  const auto batch_tuner = make_tuner(settings_.batch_tuner, batch_space(request), request.seed);
  const auto ramp_best = run_stage(*batch_tuner, stage);
  outcome.ramp_stop = batch_tuner->stop_reason().empty() ? "budget" : batch_tuner->stop_reason();
  if (!ramp_best) {
    outcome.failure = "no batch size ran: " + outcome.ramp_stop;
    if (backend != "eager") outcome.failure += "; falls back to eager";
    return outcome;
  }
  stage.purpose = TrialPurpose::learning_rate;
  stage.deadline = backend_end;
  if (settings_.objective == "time-to-loss") {
    finish_time_to_loss(request, stage, outcome, ramp_best->first.batch_size);
    return outcome;
  }
  const auto lr_tuner = make_tuner(settings_.lr_tuner, lr_space(ramp_best->first.batch_size), request.seed);
  const auto lr_best = run_stage(*lr_tuner, stage);
  outcome.lr_stop = lr_tuner->stop_reason().empty() ? "budget" : lr_tuner->stop_reason();
  // The largest size of the range still fit: the real memory limit lies beyond it ("capped by range").
  const bool capped = ramp_best->first.batch_size >= settings_.max_batch_size;
  const BestConfig best = best_config(request, stage, *ramp_best, capped, lr_best);
  db_.save_best(study, best);
  outcome.best = best;
  return outcome;
}

// One time-to-loss trial within the budget: a trial predicted to end past the deadline is not started.
std::optional<TrialResult> SearchEngine::run_time_to_loss_trial(Stage& stage, const Candidate& candidate) {
  const TrialSpec spec = make_spec(stage, candidate);
  const auto speed = stage.fitting.find(candidate.batch_size);
  const double predicted = speed == stage.fitting.end()
                               ? stage.last_trial_seconds
                               : candidate.train_steps * speed->second.step_time_median + speed->second.compile_seconds;
  if (!db_.find_trial(stage.study_id, spec.config_key()) && elapsed() + predicted > stage.deadline) {
    progress_ << strf("[%s %s] time-to-loss stage stopped: the next trial (~%s) does not fit the %s left\n",
                      stage.backend.c_str(), stage.precision.c_str(), format_duration(predicted).c_str(),
                      format_duration(std::max(0.0, stage.deadline - elapsed())).c_str());
    return std::nullopt;
  }
  return measure(stage, spec);
}

// Stage 2 of objective time-to-loss: the batch and rate reaching the target soonest; the chosen batch's
// throughput trial supplies the speed figures of the stored best.
void SearchEngine::finish_time_to_loss(const SearchRequest& request, Stage& stage, BackendOutcome& outcome,
                                       int throughput_batch) {
  TimeToLossPlan plan;
  plan.target = {settings_.target_loss, settings_.target_samples, settings_.target_batch,
                 settings_.target_learning_rate};
  for (const auto& [batch, result] : stage.fitting) plan.step_seconds[batch] = result.step_time_median;
  plan.throughput_batch = throughput_batch;
  plan.max_batch_size = stage.smallest_failed > 0 ? std::min(settings_.max_batch_size, stage.smallest_failed - 1)
                                                  : settings_.max_batch_size;
  plan.lr_tuner = settings_.lr_tuner;
  plan.lr_space = lr_space(throughput_batch);
  plan.seed = request.seed;
  plan.time_cap = settings_.time_cap;
  outcome.time_to_loss = search_time_to_loss(
      plan, [&](const Candidate& c) { return run_time_to_loss_trial(stage, c); });
  outcome.lr_stop = outcome.time_to_loss->stop;
  const auto& best = outcome.time_to_loss->best;
  if (!best) {
    outcome.failure = "no trial reached the target loss: " + outcome.time_to_loss->stop;
    return;
  }
  const int batch = best->candidate.batch_size;
  const std::pair<Candidate, TrialResult> speed{Candidate{batch, settings_.ramp_learning_rate, 0},
                                                stage.fitting.count(batch) ? stage.fitting.at(batch) : best->result};
  const BestConfig chosen = best_config(request, stage, speed, batch >= settings_.max_batch_size,
                                        std::make_pair(best->candidate, best->result));
  db_.save_best(stage.study_id, chosen);
  outcome.best = chosen;
}

}  // namespace tune
