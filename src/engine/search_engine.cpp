// The search: per backend and precision, stage 1 finds the batch size by throughput, stage 2 the learning
// rate by loss (or the time-to-loss ladder); both through the one driver. Finished trials are reused from the
// store, new ones committed; the best config is saved with why each stage ended.
#include "engine/search_engine.h"

#include <algorithm>
#include <limits>
#include <map>
#include <chrono>
#include <cmath>

#include "engine/trial_time_predictor.h"
#include "models/model_flops.h"
#include "stats/statistics.h"
#include "store/trial_lock.h"
#include "trial/backend_registry.h"
#include "tuners/batch_scaling.h"
#include "tuners/tuner_registry.h"
#include "util/duration.h"
#include "util/stop_signals.h"
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
              r.compile_overhead_seconds, r.compile_seconds, r.first_step_seconds, spec.measure.warmup_steps - 1,
              r.later_warmup_seconds, spec.measure.warmup_steps, r.step_time_median, r.step_time_ci_low,
              r.step_time_ci_high, 100 * r.step_time_cv, r.steady_state_stop.c_str());
}

// What limited the chosen batch, read from the batch stage as it ran; when no larger size tells, what ended the
// stage does: the strategy itself (throughput stopped improving), its trial cap, or the budget.
StopReasons batch_stop_reasons(const DriveOutcome& ramp, int chosen, int max_batch_size) {
  std::vector<BatchTrial> trials;
  for (const auto& t : ramp.trials) trials.push_back({t.candidate.batch_size, t.result.status});
  const BatchLimit otherwise = ramp.cause == StopCause::strategy    ? BatchLimit::throughput
                               : ramp.cause == StopCause::trial_cap ? BatchLimit::trials
                                                                    : BatchLimit::budget;
  StopReasons r = batch_limit_of(trials, chosen, chosen >= max_batch_size, otherwise);
  r.batch_stop = ramp.stop_reason;
  return r;
}

// The throughput trials that fit, by batch (the latest of each); what ran out of memory or failed.
std::map<int, TrialResult> fitting_batches(const DriveOutcome& ramp) {
  std::map<int, TrialResult> fitting;
  for (const auto& t : ramp.trials)
    if (t.result.ok()) fitting[t.candidate.batch_size] = t.result;
  return fitting;
}

int smallest_failed_batch(const DriveOutcome& ramp) {
  int smallest = 0;
  for (const auto& t : ramp.trials)
    if (!t.result.ok() && (smallest == 0 || t.candidate.batch_size < smallest)) smallest = t.candidate.batch_size;
  return smallest;
}

}  // namespace

// One stage of one backend: its study's trials as the driver's source (the store, else a new trial process),
// its deadline as the driver's budget.
class SearchEngine::Stage : public TrialSource, public Budget {
 public:
  Stage(SearchEngine& engine, const SearchRequest& request, BackendOutcome& outcome, double deadline)
      : engine_(engine), request_(request), outcome_(outcome), deadline_(deadline) {}

  std::optional<TrialResult> stored(const Candidate& candidate) override {
    const TrialSpec spec = engine_.make_spec(*this, candidate);
    const auto found = engine_.db_.find_trial(outcome_.study_id, spec.config_key());
    // A trial stopped at a shorter limit (the screen's share of a smaller budget) does not answer a longer one.
    if (!found || (found->result.status == TrialStatus::timeout && found->spec.timeout_seconds < spec.timeout_seconds))
      return std::nullopt;
    if (!found->spec.inputs_identity.empty() && found->spec.inputs_identity != spec.inputs_identity) {
      engine_.progress_ << head(spec) << ": stored trial measured on other files at the same paths (weights, corpus, "
                        << "tokenizer or dataset replaced since): runs again\n";
      return std::nullopt;
    }
    ++outcome_.trials_reused;
    note(spec, found->result);
    engine_.progress_ << head(spec) << ": reused from the store: " << describe_result(found->result) << "\n" << std::flush;
    return found->result;
  }

  TrialResult run(const Candidate& candidate) override {
    const TrialSpec spec = engine_.make_spec(*this, candidate);
    std::ostream& progress = engine_.progress_;
    progress << head(spec) << " ... " << std::flush;
    const TrialLock lock(engine_.db_.path(), outcome_.study_id, spec.config_key(), progress);
    if (lock.waited())  // the other process's result, when it finished the trial (a killed one did not)
      if (const auto finished = stored(candidate)) return *finished;
    check_inputs_unchanged();
    const std::string dir = strf("%s/study-%lld/%s", request_.runs_dir.c_str(),
                                 static_cast<long long>(outcome_.study_id), spec.config_key().c_str());
    const TrialResult result = engine_.executor_(spec, dir);
    engine_.db_.record_trial(outcome_.study_id, spec, result, dir);
    ++outcome_.trials_run;
    predictor_.observe_run(spec, result);
    note(spec, result);
    print_finished(spec, result);
    return result;
  }

  std::optional<std::string> refuses(const Candidate& candidate) override {
    const double predicted = predictor_.predict(engine_.make_spec(*this, candidate));
    if (engine_.elapsed() + predicted <= deadline_) return std::nullopt;
    return strf("budget: the next trial (~%s) does not fit the %s left", format_duration(predicted).c_str(),
                format_duration(std::max(0.0, deadline_ - engine_.elapsed())).c_str());
  }

  // The stored result of `candidate`, else a new trial's: what the driver does, for trials the engine adds itself.
  TrialResult stored_or_run(const Candidate& candidate) {
    const std::optional<TrialResult> stored = this->stored(candidate);
    return stored ? *stored : run(candidate);
  }

  // What a trial measured before this search (its pair's screening trial) teaches the budget's predictor, so
  // even the stage's first trial is held to the budget.
  void learn_from(const Candidate& candidate, const TrialResult& result) {
    const TrialSpec spec = engine_.make_spec(*this, candidate);
    predictor_.observe_run(spec, result);
    predictor_.observe(spec, result);
  }

  void next_stage(TrialPurpose purpose, double deadline) {
    purpose_ = purpose;
    deadline_ = deadline;
  }
  // Added to the request's seed in this stage's specs: the second-seed check trains rates again from seed + 1.
  void set_seed_offset(uint64_t offset) { seed_offset_ = offset; }
  uint64_t seed_offset() const { return seed_offset_; }
  // A limit on this stage's trials below the settings' trial_timeout (the screen's share of the budget).
  void set_timeout(double seconds) { timeout_ = seconds; }
  std::optional<double> timeout() const { return timeout_; }
  // The steps of a learning-rate trial whose candidate names none (0: the settings' lr_train_steps).
  void set_horizon(int steps) { horizon_ = steps; }
  int horizon() const { return horizon_; }
  // The longest horizon of at most `wanted` steps (and at least `fewest`) at which `trials` learning-rate trials
  // at `batch` are predicted to fit the time left; `wanted` when even the fewest do not (the budget then cuts).
  int affordable_horizon(int batch, int wanted, int fewest, int trials) {
    const auto fits = [&](int steps) {
      const int saved = horizon_;
      horizon_ = steps;
      const double each = predictor_.predict(engine_.make_spec(*this, Candidate{batch, 1e-3, 0}));
      horizon_ = saved;
      return engine_.elapsed() + trials * each <= deadline_;
    };
    if (fits(wanted)) return wanted;
    if (!fits(fewest)) return wanted;
    int low = fewest, high = wanted;  // fits(low), !fits(high): a trial's predicted time grows with its steps
    while (high - low > 1) {
      const int mid = low + (high - low) / 2;
      (fits(mid) ? low : high) = mid;
    }
    return low;
  }
  TrialPurpose purpose() const { return purpose_; }
  const SearchRequest& request() const { return request_; }
  const BackendOutcome& outcome() const { return outcome_; }
  std::string label() const { return "[" + outcome_.backend + " " + outcome_.precision + "]"; }

 private:
  void check_inputs_unchanged() const {
    if (!request_.inputs_identity_now || request_.inputs_identity_now() == request_.inputs_identity) return;
    std::string files;
    for (const std::string& path : {request_.weights_dir, request_.data.corpus_path, request_.data.tokenizer_dir,
                                    request_.data.dataset_path})
      if (!path.empty()) files += (files.empty() ? "" : ", ") + ("'" + path + "'");
    if (request_.data.corpus_path.empty()) files += (files.empty() ? "" : ", ") + std::string("the default corpus");
    throw std::runtime_error("an input file of this search changed or disappeared mid-search (" + files +
                             "): stopped before the next trial, so that no trial measures other data; the finished "
                             "trials are stored, and a rerun on the files as they are now measures them again");
  }
  // What the search spent (a reused trial at its recorded time), and what the predictor learns from it.
  void note(const TrialSpec& spec, const TrialResult& result) {
    outcome_.trial_seconds += result.wall_seconds;
    predictor_.observe(spec, result);
  }
  // The rest of the trial's progress line: its warnings and compile figures on lines of their own first, then
  // its result on a line that starts "  -> ", so no message lands inside another.
  void print_finished(const TrialSpec& spec, const TrialResult& result) const {
    std::ostream& progress = engine_.progress_;
    for (const auto& warning : result.warnings) progress << "\ntune: warning in the step: " << warning;
    const bool compiled = result.ok() && spec.step.backend != kNativeBackend && spec.purpose == TrialPurpose::throughput;
    if (compiled)
      progress << "\ntune: compiled training step (backend=" << spec.step.backend << ") in "
               << strf("%.2f s", result.compile_seconds) << ": " << result.compile_info << "\n"
               << describe_overhead(spec, result);
    if (compiled || !result.warnings.empty()) progress << "\n  -> ";
    progress << describe_result(result) << " [" << format_duration(result.wall_seconds) << "; elapsed "
             << format_duration(engine_.elapsed()) << " of " << format_duration(engine_.budget_) << "]\n" << std::flush;
  }

  std::string head(const TrialSpec& spec) const {
    return label() + strf(" %s batch %d, lr %.1e", to_string(spec.purpose).c_str(), spec.batch_size, spec.learning_rate);
  }

  SearchEngine& engine_;
  const SearchRequest& request_;
  BackendOutcome& outcome_;
  TrialPurpose purpose_ = TrialPurpose::throughput;
  int horizon_ = 0;
  std::optional<double> timeout_;
  uint64_t seed_offset_ = 0;
  double deadline_;  // seconds since the search started
  TrialTimePredictor predictor_;
};

SearchEngine::SearchEngine(Database& db, TrialExecutor executor, SearchSettings settings, std::ostream& progress)
    : db_(db), executor_(std::move(executor)), settings_(std::move(settings)), progress_(progress) {}

double SearchEngine::elapsed() const { return now_seconds() - start_; }

SearchSummary SearchEngine::run(const SearchRequest& request, double budget_seconds) {
  start_ = now_seconds();
  budget_ = budget_seconds;
  SearchSummary summary;
  summary.budget_seconds = budget_seconds;
  summary.objective = settings_.objective;
  std::vector<std::pair<std::string, std::string>> searches;  // precision, backend: a precision's searches together
  for (const auto& precision : request.precisions)
    for (const auto& backend : request.backends) searches.emplace_back(precision, backend);
  if (request.screen && searches.size() > 1) {
    summary.screening = screen(request);
    if (stop_signal() != 0) summary.screening.clear();  // cut short: no pair searched, none judged
    searches.clear();
    for (const auto& e : summary.screening)
      if (e.kept) searches.emplace_back(e.precision, e.backend);
  }
  std::map<std::string, std::optional<RateReference>> references;  // per precision: its first rate found
  for (size_t i = 0; i < searches.size(); ++i) {
    const std::string& precision = searches[i].first;  // named, not a structured binding: a lambda captures it
    const std::string& backend = searches[i].second;
    const auto screened = std::find_if(summary.screening.begin(), summary.screening.end(), [&](const ScreenEntry& e) {
      return e.backend == backend && e.precision == precision;
    });
    // Each search gets an equal share of what is left, so time one saves passes to the next.
    const double share = (budget_ - elapsed()) / static_cast<double>(searches.size() - i);
    try {
      summary.backends.push_back(search_backend(request, backend, precision, share, references[precision],
                                                screened == summary.screening.end() ? nullptr : &*screened));
    } catch (const StopRequested&) {  // a trial the engine added itself (the second-seed check) was stopped
      summary.backends.push_back(new_outcome(request, backend, precision));
      summary.backends.back().failure = "stopped by " + stop_signal_name() + " before its search ended";
    }
  }
  summary.elapsed_seconds = elapsed();
  return summary;
}

BackendOutcome SearchEngine::new_outcome(const SearchRequest& request, const std::string& backend,
                                         const std::string& precision) {
  BackendOutcome outcome;
  outcome.backend = backend;
  outcome.precision = precision;
  outcome.study_id = db_.ensure_study(make_study_key(request.model.name, request.model.config_hash(), request.instance,
                                                     request.libtorch_version, backend, precision, request.seq_len,
                                                     step_options_key(request.attention, request.optimizer)));
  return outcome;
}

// A screening trial's time limit: what is left of the screen's share, less what the pairs after it are expected
// to take (each the median wall time of the screening trials so far; nothing before the first has run), so a
// slow compile gets what the fast pairs left rather than an equal share (Inductor on bert-base compiles in ~145 s
// where eager's whole trial takes about a minute); at least a second (the trial then says timeout). A precision's
// native pair is its baseline, without which none of its speed-ups exists: it gets at least the median trial so
// far, past the screen's share if need be (xlm-roberta-base at 30m: eager bf16 got 1 s after a slow eager fp32).
double SearchEngine::screen_trial_limit(double left, const std::vector<ScreenEntry>& done, size_t pairs_left,
                                        bool baseline) const {
  std::vector<double> walls;
  for (const auto& e : done) walls.push_back(e.result.wall_seconds);
  const double typical = walls.empty() ? 0.0 : median(walls);
  const double limit = std::max(1.0, left - typical * static_cast<double>(pairs_left - 1));
  return baseline ? std::max(limit, typical) : limit;
}

// One throughput trial per backend x precision at the screening batch, stored in that search's study, where
// its batch ramp reuses it; then the verdicts, each said in the progress.
std::vector<ScreenEntry> SearchEngine::screen(const SearchRequest& request) {
  const int batch = std::clamp(settings_.screen_batch_size, settings_.min_batch_size, settings_.max_batch_size);
  const size_t pairs = request.backends.size() * request.precisions.size();
  progress_ << "tune: screening " << pairs << " backend x precision pairs at batch " << batch << "\n" << std::flush;
  std::vector<ScreenEntry> entries;
  const double screen_end = elapsed() + settings_.screen_budget_share * budget_;
  std::vector<double> limits;
  for (const auto& precision : request.precisions)
    for (const auto& backend : request.backends) {
      BackendOutcome outcome = new_outcome(request, backend, precision);
      Stage stage(*this, request, outcome, budget_);
      stage.set_timeout(
          screen_trial_limit(screen_end - elapsed(), entries, pairs - entries.size(), backend == kNativeBackend));
      limits.push_back(*stage.timeout());
      try {
        if (stop_signal() != 0) return entries;
        const TrialResult result = stage.stored_or_run({batch, settings_.ramp_learning_rate, 0});
        entries.push_back({backend, precision, batch, result, true, "", outcome.study_id});
      } catch (const StopRequested&) {
        return entries;  // a screen cut short judges nothing: no verdict stored, the rerun screens again
      }
    }
  judge_screen(entries, kNativeBackend, settings_.screen_keep_share);
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].result.status == TrialStatus::timeout && limits[i] < settings_.trial_timeout_seconds)
      entries[i].reason += strf(" (its limit within the screen's %.0f%% of the budget: %s; a larger --budget tries it)",
                                100 * settings_.screen_budget_share, format_duration(limits[i]).c_str());
  for (const auto& e : entries) {
    progress_ << "tune: screen: " << e.backend << " " << e.precision << ": " << e.reason << "\n";
    db_.save_screen_verdict(e.study_id, {e.batch_size, e.kept, e.reason, budget_});  // a dropped study's row says why
  }
  return entries;
}

TrialSpec SearchEngine::make_spec(const Stage& stage, const Candidate& c) const {
  const SearchRequest& r = stage.request();
  const TrialPurpose purpose = stage.purpose();
  TrialSpec s;
  s.model = r.model;
  apply_backend_label(s.step, stage.outcome().backend);  // inductor:MODE:dynamic sets the compile knobs too
  s.step.device = r.instance.device;
  s.step.precision = stage.outcome().precision;
  s.step.attention = r.attention;
  s.step.optimizer = r.optimizer;
  s.purpose = purpose;
  s.seq_len = r.seq_len;
  s.batch_size = c.batch_size;
  s.learning_rate = c.learning_rate;
  s.seed = r.seed + stage.seed_offset();
  s.measure.warmup_steps = settings_.warmup_steps;
  s.measure.min_measure_steps = settings_.min_measure_steps;
  s.measure.max_measure_steps = settings_.max_measure_steps;
  s.measure.measure_seconds = settings_.measure_seconds;
  s.measure.ci_halfwidth = settings_.ci_halfwidth;
  // asha's rungs are shorter; a time-to-loss trial's length depends on its batch
  const int steps = c.train_steps > 0 ? c.train_steps : stage.horizon() > 0 ? stage.horizon() : settings_.lr_train_steps;
  s.train_steps = purpose == TrialPurpose::learning_rate ? steps : 0;
  // Time-to-loss trials keep a constant rate: the ladder reads a shorter trial as the prefix of a longer one.
  if (purpose == TrialPurpose::learning_rate && settings_.objective == "two-stage") {
    s.lr_schedule = settings_.lr_schedule;
    s.lr_warmup_steps = static_cast<int>(std::lround(settings_.lr_warmup_share * steps));
  }
  s.threads = r.instance.threads;
  s.memory_limit_bytes = static_cast<int64_t>(r.instance.memory_bytes * settings_.memory_fraction);
  s.data = r.data;
  s.inputs_identity = r.inputs_identity;
  s.weights_dir = r.weights_dir;
  s.timeout_seconds = std::min(settings_.trial_timeout_seconds, stage.timeout().value_or(settings_.trial_timeout_seconds));
  return s;
}

// The driver with this stage as source and budget; a stage the budget ended says so in the progress.
DriveOutcome SearchEngine::run_stage(Tuner& tuner, Stage& stage, bool first_trial_free) {
  DriveOutcome out = drive(tuner, stage, {&stage, first_trial_free});
  if (out.cause == StopCause::budget)
    progress_ << stage.label() << " " << to_string(stage.purpose()) << " stage stopped: " << out.stop_reason << "\n";
  return out;
}

// The config the study stores: the speed figures of `speed` (a throughput trial at the chosen batch), and
// what limited the batch in the batch stage. The caller sets the learning rate and its stop reasons.
BestConfig SearchEngine::best_config(const Stage& stage, const ToldTrial& speed, const DriveOutcome& ramp) const {
  const TrialResult& t = speed.second;
  BestConfig best;
  best.batch_size = speed.first.batch_size;
  best.learning_rate = speed.first.learning_rate;
  best.samples_per_second = t.samples_per_second;
  best.step_time = t.step_time_median;
  best.compile_overhead_seconds = t.compile_overhead_seconds;
  best.peak_memory_bytes = t.peak_memory_bytes;
  best.trials_run = static_cast<int>(db_.trials(stage.outcome().study_id).size());
  best.step_time_ci_low = t.step_time_ci_low;
  best.step_time_ci_high = t.step_time_ci_high;
  best.flops_per_step = t.flops_per_step;
  best.mfu = model_flops_utilization(t.flops_per_step, t.step_time_median,
                                     stage.request().instance.peak.for_precision(stage.outcome().precision));
  best.stop = batch_stop_reasons(ramp, best.batch_size, settings_.max_batch_size);
  best.search_budget_seconds = budget_;
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
  space.options = settings_.options_for(settings_.batch_tuner);
  return space;
}

// Stage 2's space: the chosen batch, the configured learning rates, full-length trials of lr_train_steps; a
// reference rate from another backend is the scaling rules' (asha's candidates) and where a walk starts.
TunerSpace SearchEngine::lr_space(const SearchRequest& request, int batch_size,
                                  const std::optional<RateReference>& reference) const {
  TunerSpace space;
  space.objective = StageObjective::loss;
  space.min_batch_size = space.max_batch_size = batch_size;
  const std::vector<double>& rates = settings_.start_learning_rates(!request.weights_dir.empty());
  space.learning_rates = rates;
  space.min_learning_rate = *std::min_element(rates.begin(), rates.end());
  space.max_learning_rate = *std::max_element(rates.begin(), rates.end());
  space.edge_factor = settings_.learning_rate_edge_factor;
  space.rate_bound_low = settings_.learning_rate_bounds.front();
  space.rate_bound_high = settings_.learning_rate_bounds.back();
  space.train_steps = settings_.lr_train_steps;
  space.min_train_steps = settings_.warmup_steps + 1;  // a trial runs its warm-up and at least one more step
  space.max_trials = settings_.max_trials;
  space.options = settings_.options_for(settings_.lr_tuner);
  if (reference) {
    space.reference_batch_size = reference->batch_size;
    space.reference_learning_rate = reference->learning_rate;
  }
  return space;
}

// The learning-rate strategy inside the edge extension. With a reference (and lr_transfer), a local check
// instead of the configured search: lr_sweep over the same, square-root and linear scaling-rule rates,
// walking from the square-root one.
std::unique_ptr<RateEdgeExtension> SearchEngine::rate_tuner(const SearchRequest& request, int batch_size,
                                                            const std::optional<RateReference>& reference) const {
  TunerSpace space = lr_space(request, batch_size, reference);
  const uint64_t seed = request.seed;
  if (!reference || !settings_.lr_transfer) return make_rate_tuner(settings_.lr_tuner, space, seed);
  space.learning_rates = scaling_rule_rates(reference->learning_rate, reference->batch_size, batch_size);
  space.min_learning_rate = space.learning_rates.front();
  space.max_learning_rate = space.learning_rates.back();
  space.start_learning_rate = sqrt_rule_rate(reference->learning_rate, reference->batch_size, batch_size);
  space.options.clear();
  return make_rate_tuner("lr_sweep", space, seed);
}

BackendOutcome SearchEngine::search_backend(const SearchRequest& request, const std::string& backend,
                                            const std::string& precision, double backend_seconds,
                                            std::optional<RateReference>& reference, const ScreenEntry* screened) {
  BackendOutcome outcome = new_outcome(request, backend, precision);
  const double backend_end = elapsed() + backend_seconds;
  Stage stage(*this, request, outcome, elapsed() + settings_.ramp_budget_share * backend_seconds);
  const auto batch_tuner = make_tuner(settings_.batch_tuner, batch_space(request), request.seed);
  // A screened pair has a result already (its screening trial): its ramp's first trial is held to the budget too.
  const Candidate screen{screened ? screened->batch_size : 0, settings_.ramp_learning_rate, 0};
  if (screened) stage.learn_from(screen, screened->result);
  DriveOutcome ramp = run_stage(*batch_tuner, stage, /*first_trial_free=*/screened == nullptr);
  if (!ramp.best && screened && screened->result.ok()) {  // the budget refused every size: the screen's stands
    ramp.trials.push_back({screen, screened->result, true});
    ramp.best = ToldTrial{screen, screened->result};
  }
  outcome.ramp_stop = ramp.stop_reason;
  if (!ramp.best) {
    outcome.failure = "no batch size ran: " + outcome.ramp_stop;
    if (backend != kNativeBackend) outcome.failure += "; falls back to eager";
    return outcome;
  }
  stage.next_stage(TrialPurpose::learning_rate, backend_end);
  if (settings_.objective == "time-to-loss") finish_time_to_loss(stage, ramp, outcome);
  else finish_two_stage(stage, ramp, outcome, reference);
  return outcome;
}

// The learning-rate trials' horizon: the one the user's job calls for (engine/job_horizon.h; lr_train_steps
// without a job), or fewer steps when the trials the stage expects (the list and two past its edges; a
// transferred rate's local check: three) are predicted not to fit what is left. Says so in the progress, notes
// the horizon and job in `outcome` and returns the words for the stage's stop reason.
std::string SearchEngine::choose_horizon(Stage& stage, const ToldTrial& speed, bool transferred,
                                         BackendOutcome& outcome) {
  const int batch = speed.first.batch_size;
  const double step_seconds = speed.second.samples_per_second > 0 ? batch / speed.second.samples_per_second : 0;
  const double job_steps = job_steps_at(stage.request().job, step_seconds);
  // A trial runs its warm-up and at least one more step, however short the job.
  const int wanted = std::max(wanted_horizon(job_steps, settings_.lr_train_steps), settings_.warmup_steps + 1);
  const int listed = static_cast<int>(settings_.start_learning_rates(!stage.request().weights_dir.empty()).size());
  const int trials = transferred ? 3 : listed + 2;
  const int afforded = stage.affordable_horizon(batch, wanted, settings_.warmup_steps + 1, trials);
  stage.set_horizon(afforded);
  outcome.lr_horizon_steps = afforded;
  outcome.lr_horizon_wanted = wanted;
  outcome.job_steps = job_steps;
  const std::string words = describe_short_horizon(afforded, wanted, job_steps, trials);
  if (words.empty()) return describe_job_horizon(afforded, job_steps);
  progress_ << stage.label() << " learning-rate " << words.substr(0, words.size() - 2) << "\n";
  return words;
}

namespace {

// The next-best rate the strategy ran at the best's batch and length: the lowest loss among the other rates.
std::optional<DrivenTrial> runner_up_of(const DriveOutcome& lr) {
  const Candidate& best = lr.best->first;
  std::optional<DrivenTrial> second;
  for (const auto& t : lr.trials)
    if (t.result.ok() && t.candidate.batch_size == best.batch_size && t.candidate.train_steps == best.train_steps &&
        t.candidate.learning_rate != best.learning_rate && (!second || t.result.score_loss < second->result.score_loss))
      second = t;
  return second;
}

}  // namespace

// Where the runner-up's loss lies within seed_check_margin of the best's (the seed-to-seed spread at this
// horizon, reports/lr-horizon.md), both rates train again from seed + 1 and the lower mean over the two seeds
// wins (a rate that fails from the second seed loses). Updates `best`; returns the words for the stop reason.
std::string SearchEngine::check_second_seed(Stage& stage, const DriveOutcome& lr, BestConfig& best) {
  const std::optional<DrivenTrial> second = runner_up_of(lr);
  if (settings_.seed_check_margin <= 0 || !second || !(lr.best->second.score_loss > 0)) return "";
  const double margin = second->result.score_loss / lr.best->second.score_loss - 1;
  if (margin >= settings_.seed_check_margin) return "";
  const std::vector<Candidate> rates{lr.best->first, second->candidate};
  std::vector<double> means{lr.best->second.score_loss, second->result.score_loss};
  stage.set_seed_offset(1);
  for (size_t i = 0; i < rates.size(); ++i) {
    if (const auto refusal = stage.refuses(rates[i])) {
      stage.set_seed_offset(0);
      return "; no second-seed check of the runner-up (within " + strf("%.2f%%", 100 * margin) + "): " + *refusal;
    }
    const TrialResult again = stage.stored_or_run(rates[i]);
    means[i] = again.ok() ? (means[i] + again.score_loss) / 2 : std::numeric_limits<double>::infinity();
  }
  stage.set_seed_offset(0);
  const size_t winner = means[1] < means[0] ? 1 : 0;
  best.learning_rate = rates[winner].learning_rate;
  best.lr_score_loss = means[winner];
  return strf("; runner-up %.1e within %.2f%% of %.1e, so both trained again from seed %llu: mean loss %.4f vs "
              "%.4f over 2 seeds, %.1e chosen",
              rates[1].learning_rate, 100 * margin, rates[0].learning_rate,
              static_cast<unsigned long long>(stage.request().seed + 1), means[0], means[1],
              rates[winner].learning_rate);
}

// Stage 2 of objective two-stage: the learning-rate strategy at the batch stage's choice.
void SearchEngine::finish_two_stage(Stage& stage, const DriveOutcome& ramp, BackendOutcome& outcome,
                                    std::optional<RateReference>& reference) {
  const int batch = ramp.best->first.batch_size;
  const auto lr_tuner = rate_tuner(stage.request(), batch, reference);
  const std::string horizon = choose_horizon(stage, *ramp.best, reference.has_value() && settings_.lr_transfer, outcome);
  const DriveOutcome lr = run_stage(*lr_tuner, stage, /*first_trial_free=*/true);
  outcome.lr_stop = horizon + lr.stop_reason;
  if (reference && settings_.lr_transfer)
    outcome.lr_stop = strf("from %s's %.1e at batch %d by the scaling rules: ", reference->backend.c_str(),
                           reference->learning_rate, reference->batch_size) + outcome.lr_stop;
  else if (lr.best)
    reference = RateReference{outcome.backend, batch, lr.best->first.learning_rate};
  BestConfig best = best_config(stage, *ramp.best, ramp);
  if (lr.best) {
    best.learning_rate = lr.best->first.learning_rate;
    best.lr_score_loss = lr.best->second.score_loss;
    outcome.lr_stop += check_second_seed(stage, lr, best);
  }
  best.stop.lr_cause = lr.cause;
  best.stop.lr_stop = outcome.lr_stop;
  best.stop.lr_edge = lr_tuner->edge();
  best.stop.lr_horizon_steps = outcome.lr_horizon_steps;
  best.stop.lr_horizon_wanted = outcome.lr_horizon_wanted;
  db_.save_best(outcome.study_id, best);
  outcome.best = best;
}

// Stage 2 of objective time-to-loss: the ladder's batch and rate reaching the target soonest; the chosen batch's
// throughput trial supplies the speed figures of the stored best.
void SearchEngine::finish_time_to_loss(Stage& stage, const DriveOutcome& ramp, BackendOutcome& outcome) {
  const std::map<int, TrialResult> fitting = fitting_batches(ramp);
  const int smallest_failed = smallest_failed_batch(ramp);
  TimeToLossPlan plan;
  plan.target = {settings_.target_loss, settings_.target_samples, settings_.target_batch,
                 settings_.target_learning_rate};
  for (const auto& [batch, result] : fitting) plan.step_seconds[batch] = result.step_time_median;
  plan.throughput_batch = ramp.best->first.batch_size;
  plan.max_batch_size = smallest_failed > 0 ? std::min(settings_.max_batch_size, smallest_failed - 1)
                                            : settings_.max_batch_size;
  plan.lr_tuner = settings_.lr_tuner;
  plan.lr_space = lr_space(stage.request(), plan.throughput_batch);
  plan.seed = stage.request().seed;
  plan.time_cap = settings_.time_cap;
  TimeToLossLadder ladder(plan);
  const DriveOutcome run = run_stage(ladder, stage, /*first_trial_free=*/false);
  outcome.time_to_loss = ladder.outcome(run.cause == StopCause::budget);
  outcome.lr_stop = outcome.time_to_loss->stop;
  const auto& chosen = outcome.time_to_loss->best;
  if (!chosen) {
    outcome.failure = "no trial reached the target loss: " + outcome.time_to_loss->stop;
    return;
  }
  const int batch = chosen->candidate.batch_size;
  const ToldTrial speed{Candidate{batch, settings_.ramp_learning_rate, 0},
                        fitting.count(batch) ? fitting.at(batch) : chosen->result};
  BestConfig best = best_config(stage, speed, ramp);
  best.learning_rate = chosen->candidate.learning_rate;
  best.lr_score_loss = chosen->result.score_loss;
  best.stop.lr_cause = run.cause;
  best.stop.lr_stop = outcome.lr_stop;
  std::vector<double> rates_at_batch;
  for (const auto& t : outcome.time_to_loss->trials)
    if (t.candidate.batch_size == batch) rates_at_batch.push_back(t.candidate.learning_rate);
  best.stop.lr_edge = rate_edge_of(rates_at_batch, best.learning_rate);
  db_.save_best(outcome.study_id, best);
  outcome.best = best;
}

}  // namespace tune
