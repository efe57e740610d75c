// A study's trials for the driver: stored results first (unless measured on other input files, or stopped at a
// shorter limit), else a new trial under the study's lock, committed as it ends; the budget predicts each new
// trial's time from the trials so far; progress lines say what ran and what it measured.
#include "engine/study_trials.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "store/trial_lock.h"
#include "trial/backend_registry.h"
#include "util/duration.h"
#include "util/progress_ticker.h"
#include "util/table_format.h"

namespace tune {
namespace {

// A trial running longer than this prints a progress line, then one more each time it passes again: Inductor's cold
// compiles of a base-size model run minutes on a 2-core CPU.
constexpr double kProgressSeconds = 10;

std::string describe_result(const TrialResult& r) {
  if (!r.ok()) return to_string(r.status) + " (" + r.error_stage + ": " + r.error_message.substr(0, 160) + ")";
  return strf("ok, %.2f samples/s, step %.3f s, loss %.3f, peak %.2f GiB", r.samples_per_second, r.step_time_median,
              r.score_loss, r.peak_memory_bytes / 1073741824.0);
}

// Compile overhead with its parts, so a user sees whether tracing, the first run or warm-up dominates.
std::string describe_overhead(const TrialSpec& spec, const TrialResult& r) {
  const std::string cache = r.compile_cache.empty() ? "" : " (" + r.compile_cache + " compile cache)";
  return strf("tune: compile overhead%s %.2f s = compile %.2f s + first step %.2f s + %d more warm-up steps %.2f s"
              " - %d x steady step %.3f s (95%% CI %.3f-%.3f s, CV %.1f%%; %s)",
              cache.c_str(), r.compile_overhead_seconds, r.compile_seconds, r.first_step_seconds, spec.measure.warmup_steps - 1,
              r.later_warmup_seconds, spec.measure.warmup_steps, r.step_time_median, r.step_time_ci_low,
              r.step_time_ci_high, 100 * r.step_time_cv, r.steady_state_stop.c_str());
}

}  // namespace

StudyTrials::StudyTrials(SearchRun& search, BackendOutcome& outcome, double deadline)
    : search_(search), outcome_(outcome), deadline_(deadline) {}

std::optional<TrialResult> StudyTrials::stored(const Candidate& candidate) {
  const TrialSpec spec = this->spec(candidate);
  const auto found = search_.db.find_trial(outcome_.study_id, spec.config_key());
  // A trial stopped at a shorter limit (the screen's share of a smaller budget) does not answer a longer one.
  if (!found || (found->result.status == TrialStatus::timeout && found->spec.timeout_seconds < spec.timeout_seconds))
    return std::nullopt;
  const std::string& measured_on = found->spec.inputs_identity;
  if (!measured_on.empty() && measured_on != spec.inputs_identity &&
      measured_on != search_.request.inputs_metadata_identity) {
    search_.progress << head(spec) << ": stored trial measured on other files at the same paths (weights, corpus, "
                     << "tokenizer or dataset replaced since): runs again\n";
    return std::nullopt;
  }
  ++outcome_.trials_reused;
  note(spec, found->result);
  search_.progress << head(spec) << ": reused from the store: " << describe_result(found->result) << "\n"
                   << std::flush;
  return found->result;
}

std::string StudyTrials::study_dir() const {
  return strf("%s/study-%lld", search_.request.runs_dir.c_str(), static_cast<long long>(outcome_.study_id));
}

// Cold once per shape, warm after: the study's trials at one batch size share a compile cache (a study fixes the
// model, instance, versions, backend, precision, sequence length and step options, so the batch is the shape).
// Absolute: the trial's worker runs in its own folder.
std::string StudyTrials::compile_cache_dir(int batch_size) const {
  return std::filesystem::absolute(strf("%s/compile-cache/batch-%d", study_dir().c_str(), batch_size)).string();
}

TrialResult StudyTrials::run(const Candidate& candidate) {
  TrialSpec spec = this->spec(candidate);
  spec.compile_cache_dir = compile_cache_dir(spec.batch_size);
  // A trial that started the shape's cache and did not end ok (a timeout, a crash) leaves it half written: removed,
  // so the next trial there compiles cold, and the cold compile the row reports is a whole one.
  const bool starts_cache = !std::filesystem::exists(spec.compile_cache_dir);
  const double expected = predictor_.predict(spec);
  search_.progress << head(spec) << (expected > 0 ? " (~" + format_duration(expected) + " expected)" : "") << " ... "
                   << std::flush;
  const TrialLock lock(search_.db.path(), outcome_.study_id, spec.config_key(), search_.progress);
  if (lock.waited())  // the other process's result, when it finished the trial (a killed one did not)
    if (const auto finished = stored(candidate)) return *finished;
  check_inputs_unchanged();
  const std::string dir = study_dir() + "/" + spec.config_key();
  bool ticked = false;
  const TrialResult result = execute(spec, dir, expected, ticked);
  if (starts_cache && !result.ok()) std::filesystem::remove_all(spec.compile_cache_dir);
  search_.db.record_trial(outcome_.study_id, spec, result, dir);
  ++outcome_.trials_run;
  predictor_.observe_run(spec, result);
  note(spec, result);
  print_finished(spec, result, ticked);
  return result;
}

TrialResult StudyTrials::execute(const TrialSpec& spec, const std::string& dir, double expected, bool& ticked) const {
  ProgressTicker ticker(search_.progress, kProgressSeconds,
                        [this, expected](double running) { return running_line(running, expected); });
  const TrialResult result = search_.executor(spec, dir);
  ticked = ticker.stop() > 0;
  return result;
}

std::string StudyTrials::running_line(double running, double expected) const {
  const std::string against =
      expected <= 0        ? ""
      : running <= expected ? " of ~" + format_duration(expected) + " expected"
                            : ", past the ~" + format_duration(expected) + " expected";
  const double left = std::max(0.0, search_.budget - search_.elapsed());
  const int done = outcome_.trials_run;
  return "  " + label() + " still running: " + format_duration(running) + against + "; done: " +
         std::to_string(done) + (done == 1 ? " trial" : " trials") + " (and " + std::to_string(outcome_.trials_reused) +
         " reused); the search: " + format_duration(search_.elapsed()) + " of " + format_duration(search_.budget) +
         ", " + format_duration(left) + " left";
}

std::optional<std::string> StudyTrials::refuses(const Candidate& candidate) {
  const double predicted = predictor_.predict(spec(candidate));
  if (search_.elapsed() + predicted <= deadline_) return std::nullopt;
  return strf("budget: the next trial (~%s) does not fit the %s left", format_duration(predicted).c_str(),
              format_duration(std::max(0.0, deadline_ - search_.elapsed())).c_str());
}

DriveOutcome StudyTrials::drive(Tuner& tuner, bool first_trial_free) {
  DriveOutcome out = tune::drive(tuner, *this, {this, first_trial_free});
  if (out.cause == StopCause::budget)
    search_.progress << label() << " " << to_string(purpose_) << " stage stopped: " << out.stop_reason << "\n";
  return out;
}

TrialResult StudyTrials::stored_or_run(const Candidate& candidate) {
  const std::optional<TrialResult> found = stored(candidate);
  return found ? *found : run(candidate);
}

void StudyTrials::learn_from(const Candidate& candidate, const TrialResult& result) {
  const TrialSpec spec = this->spec(candidate);
  predictor_.observe_run(spec, result);
  predictor_.observe(spec, result);
}

bool StudyTrials::horizon_fits(int batch, int steps, int trials) {
  const int saved = horizon_;
  horizon_ = steps;
  const double each = predictor_.predict(spec(Candidate{batch, 1e-3, 0}));
  horizon_ = saved;
  return search_.elapsed() + trials * each <= deadline_;
}

int StudyTrials::affordable_horizon(int batch, int wanted, int fewest, int trials) {
  const auto fits = [&](int steps) { return horizon_fits(batch, steps, trials); };
  if (fits(wanted)) return wanted;
  if (!fits(fewest)) return wanted;
  int low = fewest, high = wanted;  // fits(low), !fits(high): a trial's predicted time grows with its steps
  while (high - low > 1) {
    const int mid = low + (high - low) / 2;
    (fits(mid) ? low : high) = mid;
  }
  return low;
}

void StudyTrials::next_stage(TrialPurpose purpose, double deadline) {
  purpose_ = purpose;
  deadline_ = deadline;
}

TrialSpec StudyTrials::spec(const Candidate& c) const {
  const SearchRequest& r = search_.request;
  const SearchSettings& settings = search_.settings;
  TrialSpec s;
  s.model = r.model;
  apply_backend_label(s.step, outcome_.backend);  // inductor:MODE:dynamic sets the compile knobs too
  s.step.device = r.instance.device;
  s.step.precision = outcome_.precision;
  s.step.attention = r.attention;
  s.step.optimizer = r.optimizer;
  s.purpose = purpose_;
  s.seq_len = r.seq_len;
  s.batch_size = c.batch_size;
  s.learning_rate = c.learning_rate;
  s.seed = r.seed + seed_offset_;
  s.repeat = repeat_;
  if (purpose_ == TrialPurpose::paired) s.paired = paired_;
  s.measure.warmup_steps = settings.warmup_steps;
  s.measure.min_measure_steps = settings.min_measure_steps;
  s.measure.max_measure_steps = settings.max_measure_steps;
  s.measure.measure_seconds = measure_seconds_.value_or(settings.measure_seconds);
  s.measure.ci_halfwidth = settings.ci_halfwidth;
  // asha's rungs are shorter; a time-to-loss trial's length depends on its batch
  const int steps = c.train_steps > 0 ? c.train_steps : horizon_ > 0 ? horizon_ : settings.lr_train_steps;
  s.train_steps = purpose_ == TrialPurpose::learning_rate ? steps : 0;
  // Time-to-loss trials keep a constant rate: the ladder reads a shorter trial as the prefix of a longer one.
  if (purpose_ == TrialPurpose::learning_rate && settings.objective == "two-stage") {
    s.lr_schedule = settings.lr_schedule;
    s.lr_warmup_steps = static_cast<int>(std::lround(settings.lr_warmup_share * steps));
  }
  s.threads = r.instance.threads;
  s.distributed.ranks = r.ranks;
  s.memory_limit_bytes = static_cast<int64_t>(r.instance.memory_bytes * settings.memory_fraction);
  s.data = r.data;
  if (purpose_ == TrialPurpose::learning_rate && r.model.task == "sequence_classification")
    s.data.held_out_share = settings.held_out_share;
  s.inputs_identity = r.inputs_identity;
  s.weights_dir = r.weights_dir;
  s.timeout_seconds = std::min(settings.trial_timeout_seconds, timeout_.value_or(settings.trial_timeout_seconds));
  return s;
}

void StudyTrials::check_inputs_unchanged() const {
  const SearchRequest& r = search_.request;
  if (!r.inputs_identity_now || r.inputs_identity_now() == r.inputs_identity) return;
  std::string files;
  for (const std::string& path : {r.weights_dir, r.data.corpus_path, r.data.tokenizer_dir, r.data.dataset_path})
    if (!path.empty()) files += (files.empty() ? "" : ", ") + ("'" + path + "'");
  if (r.data.corpus_path.empty()) files += (files.empty() ? "" : ", ") + std::string("the default corpus");
  throw std::runtime_error("an input file of this search changed or disappeared mid-search (" + files +
                           "): stopped before the next trial, so that no trial measures other data; the finished "
                           "trials are stored, and a rerun on the files as they are now measures them again");
}

// What the search spent (a reused trial at its recorded time), and what the predictor learns from it.
void StudyTrials::note(const TrialSpec& spec, const TrialResult& result) {
  outcome_.trial_seconds += result.wall_seconds;
  predictor_.observe(spec, result);
}

// The rest of the trial's progress line: its warnings and compile figures on lines of their own first, then its
// result on a line that starts "  -> ", so no message lands inside another.
void StudyTrials::print_finished(const TrialSpec& spec, const TrialResult& result, bool ticked) const {
  std::ostream& progress = search_.progress;
  for (const auto& warning : result.warnings) progress << "\ntune: warning in the step: " << warning;
  const bool compiled = result.ok() && spec.step.backend != kNativeBackend && spec.purpose == TrialPurpose::throughput;
  if (compiled)
    progress << "\ntune: compiled training step (backend=" << spec.step.backend << ") in "
             << strf("%.2f s", result.compile_seconds) << ": " << result.compile_info << "\n"
             << describe_overhead(spec, result);
  if (compiled || ticked || !result.warnings.empty()) progress << "\n  -> ";
  progress << describe_result(result) << " [" << format_duration(result.wall_seconds) << "; elapsed "
           << format_duration(search_.elapsed()) << " of " << format_duration(search_.budget) << "]\n"
           << std::flush;
}

std::string StudyTrials::head(const TrialSpec& spec) const {
  return label() + strf(" %s batch %d, lr %.1e", to_string(spec.purpose).c_str(), spec.batch_size, spec.learning_rate);
}

}  // namespace tune
