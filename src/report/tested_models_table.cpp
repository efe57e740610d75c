// Gathers the table model from the store: groups best configs into rows and reads each study's trials for its
// curves; what stopped each search is the store's (the engine saved it), never re-derived here.
#include "report/tested_models_table.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "engine/stored_pick.h"
#include "instance/peak_flops.h"
#include "stats/shift_test.h"
#include "stats/statistics.h"
#include "trial/backend_registry.h"
#include "util/table_format.h"
#include "util/utc_time.h"

namespace tune {
namespace {

// Everything that identifies a row except the backend: results of different versions never mix.
using RowKey = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, int,
                          std::string>;

RowKey row_key(const StudyKey& k) {
  return {k.model, k.libtorch_version, k.tune_version, k.instance, k.hardware.fingerprint(), k.precision, k.seq_len,
          k.step_options};
}

// The trials that speak for one rate: the longest, of the schedule its latest trial trained with (a store can hold
// older trials of other schedules), one per seed (the latest of a seed).
LearningRatePoint rate_point(double rate, const std::vector<const StoredTrial*>& trials) {
  int steps = 0;
  for (const StoredTrial* t : trials) steps = std::max(steps, t->spec.train_steps);
  const StoredTrial* latest = nullptr;
  for (const StoredTrial* t : trials)
    if (t->spec.train_steps == steps) latest = t;
  LearningRatePoint point{rate, TrialStatus::ok, 0, 0, {}, steps, latest->spec.lr_schedule, latest->spec.lr_warmup_steps};
  std::map<uint64_t, double> start_losses, prior_losses, accuracies;
  for (const StoredTrial* t : trials) {
    if (t->spec.train_steps != steps || t->spec.lr_schedule != latest->spec.lr_schedule ||
        t->spec.lr_warmup_steps != latest->spec.lr_warmup_steps)
      continue;
    point.seed_scores[t->spec.seed] = t->result.score_loss;
    if (!t->result.losses.empty()) start_losses[t->spec.seed] = t->result.losses.front();
    prior_losses[t->spec.seed] = t->result.label_prior_loss;
    accuracies[t->spec.seed] = t->result.held_out_accuracy;
    point.held_out_rows = std::max(point.held_out_rows, t->result.held_out_rows);
    if (!t->result.ok()) point.status = t->result.status;
  }
  const auto mean = [](const std::map<uint64_t, double>& by_seed) {
    double sum = 0;
    for (const auto& entry : by_seed) sum += entry.second / by_seed.size();
    return sum;
  };
  point.start_loss = mean(start_losses);
  point.label_prior_loss = mean(prior_losses);
  point.held_out_accuracy = mean(accuracies);
  point.score_loss = mean(point.seed_scores);
  point.seeds = static_cast<int>(point.seed_scores.size());
  return point;
}

// The rates at `batch_size`. A search that lengthened its horizon past the one it wanted (engine/rate_stage.cpp:
// the first did not rank the rates) ranked them on the longer runs alone, so a rate's shorter trials do not count.
// Only trials scored as the latest was count: a classifier's store can hold rates scored on the training loss
// before held-out rows scored them (data/held_out.h), and the two losses are not one scale.
std::vector<LearningRatePoint> lr_curve(const std::vector<StoredTrial>& trials, int batch_size,
                                        const StopReasons& stop) {
  const int fewest_steps = stop.lr_horizon_steps > stop.lr_horizon_wanted ? stop.lr_horizon_steps : 0;
  const auto at_batch = [&](const StoredTrial& t) {
    return t.spec.purpose == TrialPurpose::learning_rate && t.spec.batch_size == batch_size;
  };
  const StoredTrial* latest = nullptr;
  for (const auto& t : trials)
    if (at_batch(t) && (!latest || t.finished_at >= latest->finished_at)) latest = &t;
  // Successive halving stores short and long trials of one rate; the second-seed check, one per seed.
  std::map<double, std::vector<const StoredTrial*>> by_rate;
  for (const auto& t : trials)
    if (at_batch(t) && t.spec.train_steps >= fewest_steps &&
        t.spec.data.held_out_share == latest->spec.data.held_out_share)
      by_rate[t.spec.learning_rate].push_back(&t);
  std::vector<LearningRatePoint> curve;
  for (const auto& [rate, runs] : by_rate) curve.push_back(rate_point(rate, runs));
  return curve;
}

// The search's own throughput trials by size, and the same-batch rounds' first trial where none of its own ran at
// its size (engine/stored_pick.h); not the repeats (the confirmation's rounds, the screen's second round).
std::vector<BatchPoint> batch_curve(const std::vector<StoredTrial>& trials) {
  std::map<int, BatchPoint> by_batch;
  for (const auto& t : trials) {
    if (t.spec.purpose != TrialPurpose::throughput) continue;
    if (t.spec.repeat != 0 && (t.spec.repeat != kSameBatchFirstRepeat || by_batch.count(t.spec.batch_size))) continue;
    const bool ok = t.result.ok();
    by_batch[t.spec.batch_size] = {t.spec.batch_size, t.result.status, ok ? t.result.samples_per_second : 0.0,
                                   t.result.peak_memory_bytes, ok ? t.result.compile_overhead_seconds : 0.0, t.result};
  }
  std::vector<BatchPoint> curve;
  for (const auto& [batch, point] : by_batch) curve.push_back(point);
  return curve;
}

// "masked_lm: tune's corpus, hashed words": the task, corpus and tokenizer a trial trained on, by name, as
// data/training_data.cpp chooses them (a classification without a dataset labels the corpus's parts).
std::string describe_data(const TrialSpec& spec) {
  const auto name = [](const std::string& path) { return std::filesystem::path(path).filename().string(); };
  const DataSettings& d = spec.data;
  if (d.corpus_path == "synthetic") return spec.model.task + ": synthetic ids";
  const bool classification = spec.model.task == "sequence_classification";
  const std::string corpus = classification && !d.dataset_path.empty() ? name(d.dataset_path)
                             : d.corpus_path.empty()                 ? "tune's corpus"
                                                                     : name(d.corpus_path);
  const std::string labels = classification && d.dataset_path.empty() ? " (labels: its parts)" : "";
  const std::string tokenizer = d.tokenizer_dir.empty() ? "hashed words" : name(d.tokenizer_dir) + " tokenizer";
  return spec.model.task + ": " + corpus + labels + ", " + tokenizer;
}

// BackendResult's cold and warm overheads by batch over its ok throughput trials: cold, the search's own trial's
// there when it compiled cold (the figure rows have always shown), else the median of the cold ones; warm, the median
// of the warm ones.
void add_overheads(const std::vector<StoredTrial>& trials, BackendResult& result) {
  std::map<int, std::vector<double>> cold, warm;
  for (const auto& t : trials) {
    if (t.spec.purpose != TrialPurpose::throughput || !t.result.ok()) continue;
    const std::string& cache = t.result.compile_cache;
    if (cache == "warm") warm[t.spec.batch_size].push_back(t.result.compile_overhead_seconds);
    if (!cache.empty() && cache != "cold") continue;
    if (t.spec.repeat == 0) result.cold_overhead_by_batch[t.spec.batch_size] = t.result.compile_overhead_seconds;
    cold[t.spec.batch_size].push_back(t.result.compile_overhead_seconds);
  }
  for (auto& [batch, values] : cold) result.cold_overhead_by_batch.emplace(batch, median(values));  // no own trial's
  for (auto& [batch, values] : warm) result.warm_overhead_by_batch[batch] = median(values);
}

// What a study's trials add to its backend's curves and to the row's counts, dates and set-up.
// The observer trials at the best's batch (at any batch where none ran there), the latest per tool.
void add_observers(const std::vector<StoredTrial>& trials, BackendResult& result) {
  std::map<std::string, ObserverOverhead> latest;
  for (const bool at_best : {true, false}) {
    for (const auto& t : trials) {
      if (t.spec.purpose != TrialPurpose::paired || t.spec.paired.observers.empty()) continue;
      if (at_best && t.spec.batch_size != result.best.batch_size) continue;
      for (const auto& o : observer_overheads(t.result)) latest[o.observer] = o;
      result.observer_batch = t.spec.batch_size;
    }
    if (!latest.empty()) break;
  }
  for (auto& [label, overhead] : latest) result.observers.push_back(std::move(overhead));
}

void add_trials(const std::vector<StoredTrial>& trials, BackendResult& result, TableRow& row) {
  result.batch_curve = batch_curve(trials);
  result.lr_curve = lr_curve(trials, result.best.batch_size, result.best.stop);
  for (const auto& t : trials) {
    if (t.spec.repeat > 0 && t.spec.purpose == TrialPurpose::throughput)
      result.repeats_by_batch[t.spec.batch_size][t.spec.repeat] = t.result.ok() ? t.result.samples_per_second : 0.0;
    result.memory_limit_bytes = std::max(result.memory_limit_bytes, t.spec.memory_limit_bytes);
    if (row.first_trial_at.empty() || t.finished_at < row.first_trial_at) row.first_trial_at = t.finished_at;
    row.last_trial_at = std::max(row.last_trial_at, t.finished_at);
    row.trial_seconds += t.result.wall_seconds;
    if (const auto at = parse_utc_record(t.finished_at)) row.trial_times.push_back(*at);
    if (row.start.empty()) {
      row.start = t.spec.weights_dir.empty() ? "random" : "pretrained";
      row.tiny = t.spec.model.tiny;
      row.data = describe_data(t.spec);
    }
  }
  result.repeats = result.repeats_by_batch[result.best.batch_size];
  add_overheads(trials, result);
  add_observers(trials, result);
  for (const auto& t : trials)
    if (t.spec.purpose == TrialPurpose::throughput && t.spec.batch_size == result.best.batch_size && t.result.ok() &&
        t.result.data_parallel.ranks > 1 && t.spec.repeat == 0)
      result.data_parallel = t.result.data_parallel;
  row.trials_run += static_cast<int>(trials.size());
  row.search_budget_seconds = std::max(row.search_budget_seconds, result.best.search_budget_seconds);
}

// The chosen rate's untrained loss (trial/learned_share.h): a classifier's label-prior loss (chance in trials
// stored before they recorded it), else its first-step loss.
double study_untrained_loss(const std::vector<StoredTrial>& trials, const BackendResult& result) {
  const LearningRatePoint* chosen = result.chosen_rate_point();
  for (const auto& t : trials)
    if (t.spec.purpose == TrialPurpose::learning_rate)
      return untrained_loss(t.spec.model, chosen ? chosen->start_loss : 0, chosen ? chosen->label_prior_loss : 0);
  return 0;
}

BackendResult backend_result(const Database& db, const BestRow& row, TableRow& table_row) {
  BackendResult result;
  result.backend = row.key.backend;
  result.best = row.best;
  const auto trials = db.trials(row.study_id);
  if (const auto overruling = overruling_stored_trial(trials, row.best)) {  // engine/stored_pick.h
    result.rate_batch_size = row.best.batch_size;
    result.best = with_speed_of(row.best, *overruling);
  }
  add_trials(trials, result, table_row);
  if (result.rate_batch_size > 0) result.lr_curve = lr_curve(trials, result.rate_batch_size, result.best.stop);
  result.untrained_loss = study_untrained_loss(trials, result);
  return result;
}

// A backend the screen dropped: its screening trial stands for it (no rate; the batch search never ran).
BackendResult screened_result(const Database& db, const ScreenedStudy& study, TableRow& table_row) {
  BackendResult result;
  result.backend = study.key.backend;
  result.screened_out = study.verdict.reason;
  BestConfig& best = result.best;
  best.batch_size = study.verdict.batch_size;
  best.search_budget_seconds = study.verdict.search_budget_seconds;
  best.stop.batch_limit = BatchLimit::budget;
  const auto trials = db.trials(study.study_id);
  for (const auto& t : trials)
    if (t.spec.purpose == TrialPurpose::throughput && t.spec.repeat == 0 && t.spec.batch_size == best.batch_size) {
      best.samples_per_second = t.result.ok() ? t.result.samples_per_second : 0;
      best.step_time = t.result.step_time_median;
      best.compile_overhead_seconds = t.result.compile_overhead_seconds;
      best.peak_memory_bytes = t.result.peak_memory_bytes;
      best.stop.limit_status = t.result.status;
    }
  best.trials_run = static_cast<int>(trials.size());
  add_trials(trials, result, table_row);
  return result;
}

TableRow start_row(const StudyKey& k) {
  TableRow row;
  row.model = k.model;
  row.libtorch_version = k.libtorch_version;
  row.tune_version = k.tune_version;
  row.instance = {k.instance, k.hardware};
  row.precision = k.precision;
  row.step_options = k.step_options;
  row.seq_len = k.seq_len;
  return row;
}

const BatchPoint* ran_ok(const BackendResult& r, int batch) {
  for (const auto& p : r.batch_curve)
    if (p.batch_size == batch && p.status == TrialStatus::ok && p.samples_per_second > 0) return &p;
  return nullptr;
}

// The batch both ran: the compiled backend's choice when native ran it, else the largest both ran below it.
std::optional<int> common_batch(const BackendResult& native, const BackendResult& compiled) {
  std::optional<int> common;
  for (const auto& p : compiled.batch_curve)
    if (p.batch_size <= compiled.best.batch_size && ran_ok(compiled, p.batch_size) && ran_ok(native, p.batch_size))
      common = std::max(common.value_or(0), p.batch_size);
  return common;
}

// The rounds both backends ran, by round: (native samples/s, compiled samples/s).
std::vector<std::pair<double, double>> paired_rounds(const std::map<int, double>& native,
                                                     const std::map<int, double>& compiled) {
  std::vector<std::pair<double, double>> rounds;
  for (const auto& [round, compiled_speed] : compiled) {
    const auto n = native.find(round);
    if (n != native.end() && n->second > 0 && compiled_speed > 0) rounds.emplace_back(n->second, compiled_speed);
  }
  return rounds;
}

// Compiled over native at `batch`, from the rounds both ran there.
PairedRatio paired_at(const BackendResult& native, const BackendResult& compiled, int batch) {
  const auto n = native.repeats_by_batch.find(batch), c = compiled.repeats_by_batch.find(batch);
  if (n == native.repeats_by_batch.end() || c == compiled.repeats_by_batch.end()) return {};
  std::vector<double> ratios;
  for (const auto& [native_speed, compiled_speed] : paired_rounds(n->second, c->second))
    ratios.push_back(compiled_speed / native_speed);
  return paired_ratio(ratios, 0.95);
}

// The batch of the confirmation's same-batch rounds, where the two bests differ in batch: the larger best's where
// both sides have rounds there, else the compiled backend's (rows confirmed before the confirmation measured at the
// larger); 0: none.
int same_batch_of_rounds(const BackendResult& n, const BackendResult& c) {
  if (n.best.batch_size == c.best.batch_size) return 0;
  for (int batch : {std::max(n.best.batch_size, c.best.batch_size), c.best.batch_size})
    if (n.repeats_by_batch.count(batch) && c.repeats_by_batch.count(batch)) return batch;
  return 0;
}

// The row's warm figures (TableRow::warm_amortization) from each side's warm overhead, where both were measured:
// their net overhead, and the decisive comparison `amortize_with` it.
void set_warm(TableRow& row, std::optional<double> native_warm, std::optional<double> compiled_warm,
              const std::function<Amortization(double)>& amortize_with) {
  if (!native_warm || !compiled_warm) return;
  row.warm_measured = true;
  row.warm_compile_overhead_seconds = net_compile_overhead(*compiled_warm, *native_warm, kJobExtraShapes);
  row.warm_amortization = amortize_with(row.warm_compile_overhead_seconds);
}

// The confirmation's verdict and the decisive comparison's break-even with its range (tested_models_table.h).
void confirm(TableRow& row, const BackendResult& native, const BackendResult& compiled) {
  const auto rounds = paired_rounds(native.repeats, compiled.repeats);
  std::vector<double> ratios, native_speeds;
  for (const auto& [n, c] : rounds) {
    ratios.push_back(c / n);
    native_speeds.push_back(n);
  }
  row.confirmed = paired_ratio(ratios, 0.95);
  if (!row.is_confirmed()) return;
  const double native_speed = geometric_mean(native_speeds);
  const int nb = native.best.batch_size, cb = compiled.best.batch_size;
  const double overhead = net_compile_overhead(compiled.cold_overhead(cb).value_or(compiled.best.compile_overhead_seconds),
                                               native.cold_overhead(nb).value_or(native.best.compile_overhead_seconds),
                                               kJobExtraShapes);
  const auto at = [&](double speedup, double net_overhead) {
    Amortization a = amortize(native_speed, native_speed * speedup, cb, net_overhead);
    if (row.confirmed.verdict != PairedVerdict::faster) a.worth_compiling = false, a.break_even_steps = 0, a.break_even_seconds = 0;
    return a;
  };
  row.confirmed_amortization = at(row.confirmed.ratio, overhead);
  set_warm(row, native.warm_overhead(nb), compiled.warm_overhead(cb),
           [&](double net_overhead) { return at(row.confirmed.ratio, net_overhead); });
  if (row.confirmed.verdict != PairedVerdict::faster) return;
  row.break_even_steps_low = at(row.confirmed.ci_high, overhead).break_even_steps;
  row.break_even_steps_high = at(row.confirmed.ci_low, overhead).break_even_steps;
}

std::vector<int> sizes_tried(const BackendResult& r) {
  std::vector<int> sizes;
  for (const auto& p : r.batch_curve) sizes.push_back(p.batch_size);
  return sizes;
}

// engine/stored_pick.h's ramp_cut_below of either side against the other's batch, said; a screened-out side's
// one trial has its own note.
std::string describe_batch_cut(const BackendResult& native, const BackendResult& compiled) {
  for (auto [cut, other] : {std::make_pair(&native, &compiled), std::make_pair(&compiled, &native)})
    if (cut->screened_out.empty() && ramp_cut_below(cut->best, sizes_tried(*cut), other->best.batch_size))
      return describe_ramp_cut(cut->backend, cut->best, other->backend, other->best.batch_size);
  return "";
}

// The samples/s of the rounds that ran (a failed round stores 0).
std::vector<double> rounds_that_ran(const std::map<int, double>& repeats) {
  std::vector<double> ran;
  for (const auto& [round, samples_per_second] : repeats)
    if (samples_per_second > 0) ran.push_back(samples_per_second);
  return ran;
}

// Whether `faster`'s rounds ran faster than `slower`'s beyond their noise: the Hodges-Lehmann shift of their log
// samples/s with its interval above 0 (stats/shift_test.h, as `tune regress` judges a step; with four rounds a side
// that takes every round beating every other round, with fewer never).
bool rounds_faster_beyond_noise(const std::map<int, double>& faster, const std::map<int, double>& slower) {
  std::vector<double> a = rounds_that_ran(faster), b = rounds_that_ran(slower);
  if (a.empty() || b.empty()) return false;
  for (auto* side : {&a, &b})
    for (double& v : *side) v = std::log(v);
  const ShiftEstimate shift = estimate_shift(b, a, 0.05);
  return shift.significant && shift.shift > 0;
}

// A side's rounds at `batch` (the confirmation's same-batch rounds, at a size above its pick) beat its rounds at
// its ramp's pick beyond their noise, in one sitting: that pick rested on a slow single trial, and the side at its
// best runs `batch`. The row moves it there (BackendResult::moved_by_rounds_from), so the verdict compares the two
// at one batch.
void move_to_faster_rounds(BackendResult& side, int batch) {
  const auto there = side.repeats_by_batch.find(batch);
  const BatchPoint* point = ran_ok(side, batch);
  if (side.best.batch_size >= batch || there == side.repeats_by_batch.end() || !point) return;
  if (!rounds_faster_beyond_noise(there->second, side.repeats)) return;
  side.moved_by_rounds_from = side.best.batch_size;
  if (side.rate_batch_size == 0) side.rate_batch_size = side.best.batch_size;
  side.best = with_speed_of(side.best, {Candidate{batch, side.best.learning_rate, 0}, point->trial});
  side.repeats = there->second;
}

// Compiled `c` against native `n` at a batch both ran ok: speed-up, the net cold compile overhead (the compiled
// trial's own warm-up overhead where no cold one ran there), break-even.
OtherCompile compile_against_native(const BackendResult& n, const BackendResult& c, int batch) {
  const BatchPoint &np = *ran_ok(n, batch), &cp = *ran_ok(c, batch);
  const auto cold = c.cold_overhead(batch);
  OtherCompile o{c.backend, 0, cold.has_value(), {}};
  o.net_compile_overhead_seconds = net_compile_overhead(
      cold.value_or(cp.compile_overhead_seconds), n.cold_overhead(batch).value_or(np.compile_overhead_seconds),
      kJobExtraShapes);
  o.amortization = amortize(np.samples_per_second, cp.samples_per_second, batch, o.net_compile_overhead_seconds);
  return o;
}

void compare_at_equal_batch(TableRow& row) {
  const int same_batch = same_batch_of_rounds(row.backends[*row.native], row.backends[*row.compiled]);
  if (same_batch > 0)
    for (size_t side : {*row.native, *row.compiled}) move_to_faster_rounds(row.backends[side], same_batch);
  const BackendResult& n = row.backends[*row.native];
  const BackendResult& c = row.backends[*row.compiled];
  row.batch_cut = describe_batch_cut(n, c);
  if (n.best.samples_per_second > 0) row.best_vs_best_speedup = c.best.samples_per_second / n.best.samples_per_second;
  confirm(row, n, c);
  const bool one_batch = n.best.batch_size == c.best.batch_size;
  row.confirmed_equal_batch = one_batch ? row.confirmed : paired_at(n, c, same_batch);
  row.confirmed_equal_batch_size = one_batch ? c.best.batch_size : same_batch;
  const auto batch = common_batch(n, c);
  if (!batch) return;
  const BatchPoint &np = *ran_ok(n, *batch), &cp = *ran_ok(c, *batch);
  row.native_samples_per_second = np.samples_per_second;
  row.compiled_samples_per_second = cp.samples_per_second;
  const OtherCompile same = compile_against_native(n, c, *batch);
  row.cold_overhead_measured = same.cold_overhead_measured;
  row.compile_overhead_seconds = same.net_compile_overhead_seconds;
  row.amortization = same.amortization;
  if (row.is_confirmed()) return;  // the warm figures are the confirmed comparison's (confirm)
  set_warm(row, n.warm_overhead(*batch), c.warm_overhead(*batch), [&](double net_overhead) {
    return amortize(np.samples_per_second, cp.samples_per_second, *batch, net_overhead);
  });
}

// Groups of the row's trials more than kSittingGap apart, from their finish times.
int count_sittings(std::vector<std::time_t> times) {
  std::sort(times.begin(), times.end());
  int sittings = times.empty() ? 0 : 1;
  for (size_t i = 1; i < times.size(); ++i) sittings += std::difftime(times[i], times[i - 1]) > kSittingGap;
  return sittings;
}

// A best config's training matmul FLOPs per second; 0 when it did not count them.
double achieved_flops(const BestConfig& best) {
  return best.flops_per_step > 0 && best.step_time > 0 ? best.flops_per_step / best.step_time : 0;
}

// The measured peak of the row's instance, libtorch and precision when the store holds one; else a GPU's datasheet
// peak; else the estimate the search took its stored MFU against, read back as FLOP/s over that MFU.
RowPeak row_peak(const Database& db, const TableRow& row) {
  const InstanceHardware& h = row.instance.hardware;
  const PeakFlops datasheet = is_cuda_device(h.device) ? gpu_peak_flops(h.device_name, 1) : PeakFlops{};
  const double datasheet_flops = datasheet.for_precision(row.precision);
  if (const auto m = db.peak(h.fingerprint(), row.libtorch_version, row.precision))
    return {PeakSource::measured, m->measured.flops, m->measured.method, m->measured.measured_at, datasheet_flops};
  if (datasheet_flops > 0) return {PeakSource::datasheet, datasheet_flops, datasheet.source, "", 0};
  for (const auto& b : row.backends)
    if (b.best.mfu > 0 && achieved_flops(b.best) > 0)
      return {PeakSource::estimate, achieved_flops(b.best) / b.best.mfu, "the search's estimate", "", 0};
  return {};
}

// Each searched compiled backend but the row's fastest against native (TableRow::other_compiles).
void add_other_compiles(TableRow& row) {
  const BackendResult& n = row.backends[*row.native];
  for (size_t i = 0; i < row.backends.size(); ++i) {
    const BackendResult& c = row.backends[i];
    if (row.compiled == i || !is_compiler(c.backend) || !c.screened_out.empty()) continue;
    if (const auto batch = common_batch(n, c)) row.other_compiles.push_back(compile_against_native(n, c, *batch));
  }
}

// Eager first, then by name; then points native and compiled at their results and compares them.
void finish_row(TableRow& row) {
  std::sort(row.backends.begin(), row.backends.end(), [](const BackendResult& a, const BackendResult& b) {
    return std::make_pair(a.backend != kNativeBackend, a.backend) < std::make_pair(b.backend != kNativeBackend, b.backend);
  });
  // A searched backend outranks a screened-out one (whose figure is one trial at the screening batch).
  const auto rank = [&](size_t i) {
    return std::make_pair(row.backends[i].screened_out.empty(), row.backends[i].best.samples_per_second);
  };
  for (size_t i = 0; i < row.backends.size(); ++i) {
    const BackendResult& b = row.backends[i];
    if (b.backend == kNativeBackend) row.native = i;
    else if (is_compiler(b.backend) && (!row.compiled || rank(i) > rank(*row.compiled)))  // not hf-eager's row
      row.compiled = i;
  }
  if (row.native && row.compiled) compare_at_equal_batch(row);
  if (row.native) add_other_compiles(row);
  row.sittings = count_sittings(row.trial_times);
}

}  // namespace

std::string describe_instance(const TableInstance& i) {
  const InstanceHardware& h = i.hardware;
  std::string inside = std::to_string(h.device_count) + "x " + (h.device_name.empty() ? h.device : h.device_name);
  if (h.threads > 0) inside += ", " + std::to_string(h.threads) + " threads";
  if (h.memory_bytes > 0) inside += ", " + h.memory_text();
  return i.name + " (" + inside + ")";
}

TestedModelsTable gather_tested_models(const Database& db, const std::string& source,
                                       const std::optional<std::vector<int64_t>>& study_ids) {
  std::map<RowKey, TableRow> rows;
  const auto wanted = [&](int64_t id) {
    return !study_ids || std::find(study_ids->begin(), study_ids->end(), id) != study_ids->end();
  };
  const auto row_of = [&](const StudyKey& k) -> TableRow& {
    auto found = rows.find(row_key(k));
    return found != rows.end() ? found->second : rows.emplace(row_key(k), start_row(k)).first->second;
  };
  for (const auto& best : db.best_rows())
    if (wanted(best.study_id)) {
      TableRow& row = row_of(best.key);
      row.backends.push_back(backend_result(db, best, row));
    }
  for (const auto& screened : db.screened_out())
    if (wanted(screened.study_id)) {
      TableRow& row = row_of(screened.key);
      row.backends.push_back(screened_result(db, screened, row));
    }
  TestedModelsTable table;
  table.source = source;
  for (auto& [key, row] : rows) {
    finish_row(row);
    row.peak = row_peak(db, row);
    table.rows.push_back(std::move(row));
  }
  std::stable_partition(table.rows.begin(), table.rows.end(), [](const TableRow& r) { return !r.tiny; });
  return table;
}

namespace {

// How far `p`'s loss lies above `chosen`'s on the seeds both ran (a share); nullopt when they share none.
std::optional<double> margin_on_common_seeds(const LearningRatePoint& p, const LearningRatePoint& chosen) {
  double mine = 0, theirs = 0;
  int common = 0;
  for (const auto& [seed, score] : p.seed_scores) {
    const auto other = chosen.seed_scores.find(seed);
    if (other == chosen.seed_scores.end()) continue;
    mine += score;
    theirs += other->second;
    ++common;
  }
  if (common == 0 || !(theirs > 0)) return std::nullopt;
  return mine / theirs - 1;
}

}  // namespace

const LearningRatePoint* BackendResult::chosen_rate_point() const {
  const auto chosen = std::find_if(lr_curve.begin(), lr_curve.end(),
                                   [&](const LearningRatePoint& p) { return p.learning_rate == best.learning_rate; });
  return chosen != lr_curve.end() ? &*chosen : nullptr;
}

std::optional<std::pair<LearningRatePoint, double>> BackendResult::runner_up_with_margin() const {
  const LearningRatePoint* chosen = chosen_rate_point();
  std::optional<std::pair<LearningRatePoint, double>> second;
  for (const auto& p : lr_curve) {
    if (p.status != TrialStatus::ok || p.learning_rate == best.learning_rate) continue;
    // Without the chosen rate's own trials (an older store), against the score the search stored for it.
    const std::optional<double> margin =
        chosen ? margin_on_common_seeds(p, *chosen)
        : best.lr_score_loss > 0 ? std::optional<double>(p.score_loss / best.lr_score_loss - 1)
                                 : std::nullopt;
    if (margin && (!second || *margin < second->second)) second = std::make_pair(p, *margin);
  }
  return second;
}

std::optional<LearningRatePoint> BackendResult::runner_up() const {
  const auto second = runner_up_with_margin();
  return second ? std::optional<LearningRatePoint>(second->first) : std::nullopt;
}

namespace {

std::optional<double> spread_of(const LearningRatePoint& p) {
  std::vector<double> scores;
  for (const auto& [seed, score] : p.seed_scores) scores.push_back(score);
  return range_over_mean(scores);
}

}  // namespace

std::optional<double> BackendResult::seed_spread() const {
  const auto second = runner_up();
  const LearningRatePoint* chosen = chosen_rate_point();
  if (!second || !chosen) return std::nullopt;
  const auto a = spread_of(*chosen), b = spread_of(*second);
  if (!a || !b) return std::nullopt;
  return std::max(*a, *b);
}

bool BackendResult::rate_tie() const {
  const auto spread = seed_spread();
  const double margin = runner_up_margin();
  return spread && margin >= 0 && margin <= *spread;
}

std::optional<double> BackendResult::learned_share() const {
  const LearningRatePoint* chosen = chosen_rate_point();
  if (!screened_out.empty() || !chosen || chosen->status != TrialStatus::ok) return std::nullopt;
  return tune::learned_share(chosen->score_loss, untrained_loss);
}

bool BackendResult::rates_separated() const {
  const auto learned = learned_share();
  return !learned || *learned >= kLearnedShare;
}

std::optional<double> BackendResult::batch_noise_share() const {
  return range_over_mean(rounds_that_ran(repeats));
}

std::optional<RoundsSpeed> BackendResult::rounds_speed() const {
  const std::vector<double> ran = rounds_that_ran(repeats);
  if (ran.size() < 2) return std::nullopt;
  return RoundsSpeed{geometric_mean(ran), static_cast<int>(ran.size())};
}

std::vector<int> BackendResult::batches_within_noise() const {
  const auto share = batch_noise_share();
  // A best the rounds moved was chosen by the rounds, which outrank the single trials this list compares.
  if (!share || !screened_out.empty() || moved_by_rounds_from > 0) return {};
  double fastest = best.samples_per_second;
  for (const auto& point : batch_curve)
    if (point.status == TrialStatus::ok) fastest = std::max(fastest, point.samples_per_second);
  std::set<int> within{best.batch_size};
  for (const auto& point : batch_curve)
    if (point.status == TrialStatus::ok && point.samples_per_second >= fastest * (1 - *share))
      within.insert(point.batch_size);
  return {within.begin(), within.end()};
}

double BackendResult::runner_up_margin() const {
  const auto second = runner_up_with_margin();
  return second ? second->second : 0;
}

std::string to_string(PeakSource source) {
  switch (source) {
    case PeakSource::measured: return "measured";
    case PeakSource::datasheet: return "datasheet";
    case PeakSource::estimate: return "estimate";
    case PeakSource::none: break;
  }
  return "none";
}

Mfu backend_mfu(const TableRow& row, const BackendResult& result) {
  return backend_mfu_at(row, result, result.best.samples_per_second);
}

Mfu backend_mfu_at(const TableRow& row, const BackendResult& result, double samples_per_second) {
  // The step's FLOPs are the best config's; its speed scales them (same batch, so FLOP/s goes as samples/s). A best
  // without a speed keeps its stored figure, as before the rounds were shown.
  const double speed_share = result.best.samples_per_second > 0 ? samples_per_second / result.best.samples_per_second : 1;
  // Without a measured or datasheet peak the search's own figure stands: its estimate is known only through it.
  if (row.peak.source != PeakSource::measured && row.peak.source != PeakSource::datasheet)
    return {result.best.mfu * speed_share, 0};
  const double achieved = achieved_flops(result.best) * speed_share;
  const auto share = [&](double peak) { return peak > 0 ? achieved / peak : 0.0; };
  return {share(row.peak.flops), share(row.peak.datasheet_flops)};
}

bool TableRow::budget_cut() const {
  for (const auto& b : backends) {
    if (!b.screened_out.empty()) continue;
    const StopReasons& stop = b.best.stop;
    if (stop.batch_limit == BatchLimit::budget || stop.lr_cause == StopCause::budget ||
        stop.lr_horizon_steps < stop.lr_horizon_wanted)
      return true;
  }
  return false;
}

std::optional<double> BackendResult::cold_overhead(int batch) const {
  const auto it = cold_overhead_by_batch.find(batch);
  if (it == cold_overhead_by_batch.end()) return std::nullopt;
  return it->second;
}

std::optional<double> BackendResult::warm_overhead(int batch) const {
  if (!keeps_compile_cache(backend)) return cold_overhead(batch);
  const auto it = warm_overhead_by_batch.find(batch);
  if (it == warm_overhead_by_batch.end()) return std::nullopt;
  return it->second;
}

bool TableRow::shows_warm() const {
  const BackendResult* c = compiled_result();
  return warm_measured && c && keeps_compile_cache(c->backend);
}

int TableRow::ranks() const {
  const std::string ranks = step_option(step_options, "ranks");
  return ranks.empty() ? 1 : std::max(1, std::atoi(ranks.c_str()));
}

bool TableRow::screened_out() const {
  return std::all_of(backends.begin(), backends.end(), [](const BackendResult& b) { return !b.screened_out.empty(); });
}

double native_seconds_at(const TableRow& row, double steps) {
  if (row.native_samples_per_second <= 0) return 0;
  return steps * row.amortization.batch_size / row.native_samples_per_second;
}

double compiled_seconds_at(const TableRow& row, double steps) {
  if (row.compiled_samples_per_second <= 0) return 0;
  return row.compile_overhead_seconds + steps * row.amortization.batch_size / row.compiled_samples_per_second;
}

}  // namespace tune
