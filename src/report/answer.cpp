// The answer from the table's rows (report/answer.h): which precision row, which backend in it, and the config's
// provenance (what its rate was found for, what the search did not really find), in words.
#include "report/answer.h"

#include <cmath>

#include "instance/instance.h"
#include "report/table_cells.h"
#include "store/database.h"
#include "trial/data_parallel_figures.h"
#include "tuners/batch_scaling.h"
#include "util/duration.h"
#include "util/join.h"
#include "util/table_format.h"

namespace tune {
namespace {

double config_speed(const BackendResult& r) {
  const auto rounds = r.rounds_speed();
  return rounds ? rounds->samples_per_second : r.best.samples_per_second;
}

std::string paired_words(const TableRow& row) {
  const PairedRatio& p = row.confirmed;
  return strf("%s %.2fx eager (95%% CI %.2f-%.2f, %d paired rounds)", row.compiled_result()->backend.c_str(), p.ratio,
              p.ci_low, p.ci_high, p.rounds);
}

// Whether to compile, and why: only a paired "faster" is a finding; a given job must outlast the break-even.
std::pair<bool, std::string> compile_decision(const TableRow& row, const JobLength& job) {
  const BackendResult* compiled = row.compiled_result();
  if (!compiled) return {false, "no compiled backend was searched for this precision"};
  if (!row.is_confirmed())
    return {false, "not shown to pay: " + compiled->backend + "'s speed-up is unconfirmed (fewer than two paired "
                   "rounds ran)"};
  if (row.confirmed.verdict == PairedVerdict::slower) return {false, "slower: " + paired_words(row)};
  if (row.confirmed.verdict != PairedVerdict::faster)
    return {false, "no difference within the noise: " + paired_words(row)};
  const Amortization& a = row.confirmed_amortization;
  std::string pays = strf("pays off after %.0f steps of batch %d (%s) with a cold compile", a.break_even_steps,
                          a.batch_size, format_duration(a.break_even_seconds).c_str());
  if (row.shows_warm() && row.warm_amortization.worth_compiling)
    pays += strf(", %.0f steps with a warm compile cache", row.warm_amortization.break_even_steps);
  // --job-hours counts steps at the compiled config's speed, as the table's recommendation does; a data-parallel
  // row's samples/s count every rank, its batch is one rank's.
  const double samples_per_step = double(compiled->best.batch_size) * row.ranks();
  const double steps = job.steps > 0   ? job.steps
                       : job.hours > 0 ? job.hours * 3600 * compiled->best.samples_per_second / samples_per_step
                                       : 0;
  if (steps > 0 && steps * compiled->best.batch_size <= a.break_even_steps * a.batch_size)
    return {false, strf("your %.0f-step job is shorter than the break-even: ", steps) + paired_words(row) + "; " + pays};
  return {true, paired_words(row) + "; " + pays + (steps > 0 ? "" : "; for a shorter job stay eager")};
}

std::vector<std::string> marks_of(const TableRow& row, const BackendResult& r) {
  std::vector<std::string> marks;
  const StopReasons& stop = r.best.stop;
  if (stop.lr_edge == RateEdge::above || stop.lr_edge == RateEdge::below)
    marks.push_back(strf("the learning rate is the %s tried and scored best, and the search went no further (its "
                         "bounds, the budget, or an older search): the best rate may be %s",
                         stop.lr_edge == RateEdge::above ? "largest" : "smallest",
                         stop.lr_edge == RateEdge::above ? "larger" : "smaller"));
  if (r.best.batch_capped_by_range())
    marks.push_back(strf("batch %d is the range's largest and was the fastest: a larger one may be faster",
                         r.best.batch_size));
  if (stop.batch_limit == BatchLimit::budget || stop.batch_limit == BatchLimit::trials)
    marks.push_back(strf("the batch ramp ended at %d for want of %s, not at a measured limit", r.best.batch_size,
                         stop.batch_limit == BatchLimit::budget ? "budget" : "trials"));
  if (!r.rates_separated()) marks.push_back("the rates were not separated yet (the model had barely learned)");
  if (r.rate_tie())
    if (const auto second = r.runner_up())
      marks.push_back(strf("learning rate %.1e ties with it within the seed spread: either will do", second->learning_rate));
  if (!row.batch_cut.empty()) marks.push_back("best vs best is uneven: " + row.batch_cut);
  return marks;
}

// The job's warm-up share: the settings' where the trials' warm-up steps are what it gives at their length.
double job_warmup_share(const LearningRatePoint& rate, double settings_share) {
  if (rate.train_steps <= 0 || rate.lr_warmup_steps <= 0) return 0;
  if (std::lround(settings_share * rate.train_steps) == rate.lr_warmup_steps) return settings_share;
  return static_cast<double>(rate.lr_warmup_steps) / rate.train_steps;
}

// Whether a compile has paid for itself by the end of a job of `steps` steps of `batch` samples.
bool paid_off_by(const Amortization& a, double steps, int batch) {
  return a.worth_compiling && steps * batch > a.break_even_steps * a.batch_size;
}

// TableRow::other_compiles in words, and with --job-steps which compile has paid off by the job's end (its steps
// counted at the fastest compiled backend's batch, as compile_decision counts them).
std::vector<std::string> other_compile_lines(const TableRow& row, const JobLength& job) {
  std::vector<std::string> lines;
  const BackendResult* fastest = row.compiled_result();
  const int batch = fastest ? fastest->best.batch_size : 0;
  for (const OtherCompile& o : row.other_compiles) {
    std::string line = describe_other_compile(row, o);
    if (job.steps > 0 && fastest)
      line += strf("; by your job's %.0f steps ", job.steps) + o.backend +
              (paid_off_by(o.amortization, job.steps, batch) ? " has paid off, " : " has not paid off, ") +
              fastest->backend + (paid_off_by(row.decisive(), job.steps, batch) ? " has" : " has not");
    lines.push_back(line);
  }
  return lines;
}

// The largest batch of the backend's ramp that ran within `max_memory` (its measured peak), or 0 where none did.
int largest_batch_within(const BackendResult& run, int64_t max_memory) {
  int largest = 0;
  for (const BatchPoint& p : run.batch_curve)
    if (p.status == TrialStatus::ok && p.peak_memory_bytes > 0 && p.peak_memory_bytes <= max_memory)
      largest = std::max(largest, p.batch_size);
  return largest;
}

// Splits the searched effective batch (batch x ranks) over the user's devices (by default as many as the ranks), and
// each device's share into accumulation steps the memory holds.
void fit_to_hardware(RunAnswer& a, const BackendResult& run, const AnswerOptions& options) {
  a.devices = options.devices > 0 ? options.devices : a.ranks;
  const int searched = a.batch_size * a.ranks;
  const int per_device_need = std::max(1, (searched + a.devices - 1) / a.devices);
  std::vector<std::string> why;
  const int fits = options.max_memory_bytes > 0 ? largest_batch_within(run, options.max_memory_bytes) : per_device_need;
  if (fits == 0)
    why.push_back("no batch of the ramp ran within " + format_bytes(options.max_memory_bytes) + " (measured on " +
                  a.instance + "): each device steps 1, which may not fit either");
  const int most_per_step = std::max(1, fits);
  a.gradient_accumulation = (per_device_need + most_per_step - 1) / most_per_step;
  a.per_device_batch = (per_device_need + a.gradient_accumulation - 1) / a.gradient_accumulation;
  const int effective = a.per_device_batch * a.gradient_accumulation * a.devices;
  if (a.gradient_accumulation > 1)
    why.push_back(strf("batch %d does not fit %s per device (the largest measured within it: %d), so each device "
                       "steps %d and accumulates %d", per_device_need, format_bytes(options.max_memory_bytes).c_str(),
                       most_per_step, a.per_device_batch, a.gradient_accumulation));
  a.job_learning_rate = a.learning_rate;
  if (effective != searched) {
    a.job_learning_rate = sqrt_rule_rate(a.learning_rate, searched, effective);
    why.push_back(strf("the effective batch is %d, not %d: the rate scaled by the square-root rule to %.2e",
                       effective, searched, a.job_learning_rate));
  } else if (a.devices > 1 || a.gradient_accumulation > 1 || a.devices != a.ranks) {
    why.push_back(strf("the effective batch stays %d (%d per device x %d accumulated x %d devices), so the rate "
                       "stays", effective, a.per_device_batch, a.gradient_accumulation, a.devices));
  }
  if (a.devices != a.ranks && a.ranks > 1)
    why.push_back(strf("the search ran %d ranks of batch %d: its samples/s are not measured on %d devices", a.ranks,
                       a.batch_size, a.devices));
  a.hardware_note = join(why, "; ");
}

RunAnswer answer_for_row(const TableRow& row, const AnswerOptions& options) {
  const JobLength& job = options.job;
  RunAnswer a;
  a.model = row.model, a.instance = row.instance.name, a.device = row.instance.hardware.device;
  a.tune_version = row.tune_version, a.libtorch_version = row.libtorch_version, a.measured_at = row.last_trial_at;
  a.seq_len = row.seq_len, a.precision = row.precision, a.start = row.start, a.data = row.data;
  a.trials = row.trials_run, a.budget_cut = row.budget_cut();
  const auto [compile, reason] = compile_decision(row, job);
  a.compile = compile, a.compile_reason = reason;
  if (const BackendResult* c = row.compiled_result()) a.compiled_backend = c->backend;
  const BackendResult& run = compile ? *row.compiled_result() : *row.native_result();
  a.backend = run.backend, a.batch_size = run.best.batch_size, a.learning_rate = run.best.learning_rate;
  a.ranks = row.ranks();
  a.samples_per_second = config_speed(run);
  a.optimizer = step_option(row.step_options, "optimizer");
  if (a.optimizer.empty()) a.optimizer = "adamw";
  a.lr_schedule = "constant";
  if (const LearningRatePoint* rate = run.chosen_rate_point()) {
    a.rate_steps = rate->train_steps, a.lr_schedule = rate->lr_schedule;
    a.warmup_share = job_warmup_share(*rate, options.warmup_share);
  }
  a.marks = marks_of(row, run);
  for (const BackendResult& b : row.backends)
    for (const auto& o : b.observers)
      a.observers.push_back(strf("%s batch %d + %s: ", b.backend.c_str(), b.observer_batch, o.observer.c_str()) +
                            describe_observer_cost(o));
  a.data_parallel = describe_data_parallel(run.data_parallel);
  a.other_compiles = other_compile_lines(row, job);
  fit_to_hardware(a, run, options);
  return a;
}

// "2250 samples/s", "2.61 samples/s": three significant digits, never in exponent form.
std::string samples_per_second_text(double value) {
  return strf(value >= 100 ? "%.0f samples/s" : "%.3g samples/s", value);
}

bool answerable(const TableRow& row) {
  const BackendResult* native = row.native_result();
  return native && native->screened_out.empty() && native->best.learning_rate > 0;
}

}  // namespace

std::optional<RunAnswer> answer_from(const TestedModelsTable& table, const AnswerOptions& options) {
  if (options.devices < 0) throw std::invalid_argument(strf("--devices %d: expected at least 1", options.devices));
  std::optional<RunAnswer> best;
  std::vector<RunAnswer> all;
  for (const TableRow& row : table.rows)
    if (answerable(row)) all.push_back(answer_for_row(row, options));
  for (const RunAnswer& a : all)
    if (!best || a.samples_per_second > best->samples_per_second) best = a;
  if (!best) return best;
  for (const RunAnswer& a : all)
    if (a.precision != best->precision)
      best->others.push_back(describe_run(a) + " at " + samples_per_second_text(a.samples_per_second) +
                             strf(" (%.2fx this)", a.samples_per_second / best->samples_per_second));
  return best;
}

std::string describe_run(const RunAnswer& a) {
  const std::string ranks = a.ranks > 1 ? strf(" per rank x %d ranks", a.ranks) : "";
  return a.precision + ", " + a.backend + ", batch " + std::to_string(a.batch_size) + ranks + ", learning rate " +
         strf("%.1e", a.learning_rate);
}

std::string describe_rate_job(const RunAnswer& a) {
  const std::string optimizer = a.optimizer == "fused" ? "AdamW (fused)" : "AdamW";
  const std::string schedule =
      a.warmup_share > 0 ? strf("linear warm-up over %.0f%% of the steps, then ", 100 * a.warmup_share) : "";
  return optimizer + ", weight decay 0.01; " + schedule + (a.lr_schedule == "cosine" ? "cosine decay to 0" : "constant") +
         "; ranked after " + std::to_string(a.rate_steps) + " steps from a " + a.start + " start; " + a.data;
}

void write_answer(std::ostream& out, const RunAnswer& a, const std::vector<std::string>& files,
                  const std::string& continue_command) {
  out << "\n## Answer: " << a.model << " on " << a.instance << ", seq " << a.seq_len << "\n\n"
      << "- run: " << describe_run(a) << " (" << samples_per_second_text(a.samples_per_second) << ")\n"
      << "- the rate was found for: " << describe_rate_job(a) << "\n"
      << "- compile: " << (a.compile ? "yes, " : "no, ") << a.compile_reason << "\n";
  if (!a.hardware_note.empty())
    out << "- on your hardware: " << strf("batch %d per device x %d accumulated x %d devices, learning rate %.1e: ",
                                          a.per_device_batch, a.gradient_accumulation, a.devices, a.job_learning_rate)
        << a.hardware_note << "\n";
  for (const auto& mark : a.marks) out << "- caveat: " << mark << "\n";
  for (const auto& other : a.others) out << "- other precision: " << other << "\n";
  if (!a.data_parallel.empty()) out << "- data-parallel (the batch is per rank): " << a.data_parallel << "\n";
  for (const auto& other : a.other_compiles) out << "- another compile (the search's trials, unconfirmed): " << other << "\n";
  for (const auto& observer : a.observers) out << "- with a tool attached: " << observer << "\n";
  if (a.budget_cut)
    out << "- cut: the budget ended part of this search (the table's budget cells say where); `" << continue_command
        << "` continues it, reusing the stored trials that still answer it (the batch ramp's; rate trials where "
           "the batch stays)\n";
  for (const auto& file : files) out << "- " << file << "\n";
}

}  // namespace tune
