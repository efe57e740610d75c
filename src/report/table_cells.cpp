// Formats one tested-models row as text cells: native beside the fastest compiled backend, with
// speed-up, compile overhead, break-even, peak memory, trial count and dates.
#include "report/table_cells.h"

#include <algorithm>
#include <cmath>

#include "instance/instance.h"
#include "util/duration.h"
#include "util/join.h"
#include "util/table_format.h"

namespace tune {
namespace {

// The cell f makes of a backend's result, or "-" when the row has no such backend.
template <typename Format>
std::string cell(const BackendResult* r, Format f) {
  return r ? f(*r) : "-";
}

std::string learning_rate(const BackendResult& r) { return learning_rate_cell(r); }
std::string peak_memory(const BackendResult& r) { return format_bytes(r.best.peak_memory_bytes); }
std::string native_batch(const BackendResult& r) { return batch_size_cell(r, ""); }
std::string compiled_batch(const BackendResult& r) { return batch_size_cell(r, r.backend); }

// "MFU 71.2% of measured", on a GPU "MFU 41.0%, 58.0% of measured" (datasheet first), "MFU est. 89.7%" without a
// measured peak; "" without an MFU. Above 100% of a measured (or datasheet) peak is an error, never a figure; above
// 100% of an estimate proves the estimate low (a CPU's nominal clock, not its boost).
std::string mfu_note(const TableRow& row, const Mfu& mfu) {
  if (mfu.of_peak <= 0) return "";
  switch (row.peak.source) {
    case PeakSource::measured: {
      const std::string datasheet = mfu.of_datasheet > 0 ? strf("MFU %.1f%%, ", 100 * mfu.of_datasheet) : "MFU ";
      return datasheet + (mfu.of_peak > 1 ? strf("error: %.0f%% of the measured peak", 100 * mfu.of_peak)
                                          : strf("%.1f%% of measured", 100 * mfu.of_peak));
    }
    case PeakSource::datasheet:
      return mfu.of_peak > 1 ? strf("MFU error: %.0f%% of the datasheet peak", 100 * mfu.of_peak)
                             : strf("MFU %.1f%%", 100 * mfu.of_peak);
    case PeakSource::estimate:
    case PeakSource::none: break;
  }
  return mfu.of_peak > 1 ? "MFU est. >100%: peak estimate low" : strf("MFU est. %.1f%%", 100 * mfu.of_peak);
}

// "2.61 (2 rounds, the search's trial 3.45; MFU 57.1% of measured)" in a confirmed row: the rounds ran in one
// sitting beside the other side's, so they are what the row's verdict compares; else the search's one trial,
// "3.45 (MFU 75.6% of measured)".
std::string throughput_cell(const TableRow& row, const BackendResult* r) {
  if (!r) return "-";
  if (!r->screened_out.empty() && r->best.samples_per_second <= 0) return to_string(r->best.stop.limit_status);
  const auto rounds = row.is_confirmed() ? r->rounds_speed() : std::nullopt;
  const double shown = rounds ? rounds->samples_per_second : r->best.samples_per_second;
  std::vector<std::string> notes;
  if (rounds)
    notes.push_back(strf("%d rounds, the search's trial %.2f", rounds->rounds, r->best.samples_per_second));
  if (std::string mfu = mfu_note(row, backend_mfu_at(row, *r, shown)); !mfu.empty()) notes.push_back(mfu);
  return strf("%.2f", shown) + (notes.empty() ? "" : " (" + join(notes, "; ") + ")");
}

std::string precision_cell(const TableRow& row) {
  return row.step_options == kDefaultStepOptions ? row.precision : row.precision + " (" + row.step_options + ")";
}

std::string day(const std::string& iso_time) { return iso_time.substr(0, 10); }

// The paired rounds at the compiled backend's batch when they ran, else the single trials' figure at a common batch.
std::string same_batch_cell(const TableRow& row, bool equal) {
  const PairedRatio& p = row.confirmed_equal_batch;
  if (p.verdict != PairedVerdict::unconfirmed && row.compiled)
    return strf("%.2fx at %d (paired: CI %.2f-%.2f, %d rounds)", p.ratio, row.confirmed_equal_batch_size,
                p.ci_low, p.ci_high, p.rounds);
  return equal ? strf("%.2fx at %d (single trials)", row.amortization.speedup, row.amortization.batch_size) : "-";
}

// Each at its own batch: the confirmation's paired speed-up where it ran (the verdict's), else the single trials'.
std::string best_vs_best_cell(const TableRow& row) {
  const int native_batch = row.native_result()->best.batch_size, compiled_batch = row.compiled_result()->best.batch_size;
  const std::string cut = row.batch_cut.empty() ? "" : "; " + row.batch_cut;
  if (row.is_confirmed())
    return strf("%.2fx (%d vs %d, paired%s)", row.confirmed.ratio, native_batch, compiled_batch, cut.c_str());
  return strf("%.2fx (%d vs %d%s)", row.best_vs_best_speedup, native_batch, compiled_batch, cut.c_str());
}

}  // namespace

const char* const kRangeCapFootnote =
    "* largest batch size tested: the largest size of the search range fit and was still the fastest, "
    "so the real limit is higher (raise `max_batch_size`).";
const char* const kSetupNote =
    "Start: \"random\" (initialised as Hugging Face does) or \"pretrained\" (weights from --weights, the model's folder "
    "or the HF cache); data: the task, corpus and "
    "tokenizer the trials trained on (\"tune's corpus\": the default, the King James Bible that scripts/setup writes to corpus/ "
    "or $TUNE_CORPUS; \"hashed words\": no tokenizer files (no --tokenizer, none in the model's folder), words hashed into the model's ids). Budget: `tune --budget`, the wall clock of the whole "
    "search of that model (every backend and precision); \"cut\": it ended a batch search (\"budget\" at the "
    "batch), a rate search, or shortened the steps rates were ranked after (\"budget: 4 of 12 steps\" at the rate). "
    "Budget is one run's: a rerun resumes a cut search with a budget of its own, so the trials may take longer. "
    "Trials: how many ran behind the row, their wall time together, and over how many sittings (runs of trials "
    "more than an hour apart) when more than one. MFU: the training step's matmul FLOPs per "
    "second over the instance's peak at that precision. \"of measured\": the peak tune measured on that instance "
    "(its fingerprint) and libtorch, square torch.mm at that precision (512 to 2048 on a CPU at the trials' threads, "
    "4096 and 8192 on a GPU), the median repetition at the fastest size, stored with the instance and measured "
    "again when it changes (`tune instance` shows it, `--measure-peak` measures it anew); above 100% of it is an "
    "error (\"MFU error: x% of the measured peak\"), never a figure. A GPU's plain MFU is against its datasheet peak. "
    "\"est.\": no measured peak is stored for the row, so against the search's estimate: a CPU's from the clock "
    "/proc/cpuinfo reports, on a VM the nominal one, not the boost the cores run at, so it reads high (\"MFU est. "
    ">100%: peak estimate low\" where it proves the estimate low).";
const char* const kObserverNote =
    "What attached tools cost (`tune --model ... --observers LIST`): the step without and with each tool (the PyTorch "
    "profiler, anomaly detection, a debugger's tensor statistics, a per-step loss log), in alternating blocks of one "
    "process; the step time with it over without, the geometric mean of the rounds with its 95% interval, and for a "
    "compiled step what the tool did to its graphs (docs/observers.md):";
const char* const kOtherCompilesNote =
    "Other compiles (`--backends` with more than one compiled backend, e.g. `eager,inductor,inductor:regional`): the "
    "row's columns are its fastest compiled backend's; each other one is compared with native at a batch both ran, from "
    "the search's own trials (no paired rounds ran for it), with its cold compile overhead (net of native's warm-up, "
    "counting a job's extra shapes, as the row's) and break-even, beside the row's own (its paired verdict where its "
    "confirmation ran, else its same-batch figures): a cheaper compile can pay off sooner for a short job:";
const char* const kRanksNote =
    "\"ranks=N\" in the precision cell: a data-parallel row (`tune --model ... --ranks N`): every trial ran N "
    "processes sharing the instance's threads, each training its own rows, gradients all-reduced after every backward "
    "in buckets overlapped with it (DDP's way; gloo on a CPU, NCCL with a GPU per rank; the Python worker's backends run Hugging Face's module "
    "under torch's DDP, inductor compiling it as a DDP job does, its graph split at the buckets). Batch sizes are per "
    "rank, as in the vendor's table (per GPU); samples/s count all ranks; peak memory is the largest rank's; the "
    "JSON's data_parallel gives the scaling efficiency (N ranks against N times rank 0 alone, paired rounds), the "
    "communication the backward did not hide, each rank's peak memory and, under DDP, what DDP costs without its "
    "communication (ddp_without_comm) (docs/data-parallel.md).";
const char* const kScreenNote =
    "\"screened out\": tune's default coverage first times every backend x precision at one batch "
    "(`screen_batch_size`, 8) and searches only those within `screen_keep_share` (80%) of the fastest's samples/s "
    "(of the backends that also ran at the pair's precision) or below it by less than the screen's noise band (10 "
    "points; one trial each, so the search decides those), with each precision's eager as its baseline; a precision "
    "one round would drop at a third of the fastest or more (or a second compiler of a kept precision) is measured "
    "again, and dropped only when both rounds agree; a screened-out backend's figures are that one trial, its rate "
    "\"not searched\" (`--precisions`/`--backends` search it). Dropped, and why:";
const char* const kTrialCapNote =
    "\"max trials\": the batch search's trial cap (max_trials) ended it first, so a larger size may be faster.";
const char* const kBatchLimitNote =
    "Batch sizes are per device. \"OOM at N\": size N ran out of memory, so the size shown is the largest that "
    "fit. \"timeout at N\" (or another status): size N failed otherwise. \"budget\": the time budget ended the "
    "search first. No mark: the batch ramp's pick, the fastest size that ran or, when a smaller size's samples/s "
    "lie within the fastest's 95% CI, the smallest such size (as fast within the noise, with more optimizer steps "
    "per sample and memory to spare); the sizes above the fastest ran and were not faster.";

const char* const kSpeedupNote =
    "Samples/s: in a row with a paired verdict, the geometric mean of the confirmation's rounds of that config "
    "(\"N rounds\"), which ran in one sitting alternating with the other side's, beside the search's one trial of "
    "it (\"the search's trial\"), which may come from another sitting hours away (on the shared 2-core CPU of the "
    "committed table, the same config measured hours apart moved by a median 20%); else the search's one trial. MFU "
    "at the figure shown. "
    "Speed-up (same batch): compiled over native samples/s at one batch size; \"paired\" where the confirmation "
    "ran the two at the larger of their best batches in alternating rounds of their own (the interval as in the "
    "verdict; rows confirmed before 2026-12-06: at the compiled backend's batch), else \"single trials\", each the "
    "search's (at the compiled backend's batch when native ran it, else the largest both ran), possibly from "
    "different sittings. Best vs best: each at its own chosen batch, so batch size is in it too; "
    "\"paired\": the verdict's speed-up, else the search's single trials. "
    "Compile overhead: what compiling costs a job at that batch: the compiled warm-up overhead once for the "
    "training shape and once for each of 2 more shapes a job meets (a last partial batch, an evaluation batch), "
    "less native's own warm-up overhead. Break-even: with a paired verdict, each backend at its best (native at its "
    "rounds' samples/s, compiled at the paired speed-up), steps of the compiled batch until compiling has paid for "
    "itself (its overhead taken at the best batches), with the range the speed-up's 95% CI gives, and \"not worth "
    "compiling (paired)\" unless the verdict is \"compile\"; unconfirmed, steps of the same-batch comparison.";
const char* const kPairedVerdictNote =
    "Verdict (paired, 95% CI): native and the compiled backend, each at its best batch, measured again after the "
    "search in alternating rounds of one sitting (native then compiled, compiled then native, ...), each trial a new "
    "process; the speed-up is the geometric mean of the rounds' ratios with its t-interval. \"compile\" and \"don't "
    "compile\" when the interval lies above or below 1, \"no difference within the noise\" when it holds 1, "
    "\"unconfirmed\" when fewer than 2 rounds ran: the row's other speed-ups are single trials from different "
    "stages of the search, not paired, and are no finding on their own.";
const char* const kMovedByRoundsNote =
    "\"the rounds: N ran slower\" after a batch size: that backend's ramp picked N on one trial per size, but the "
    "confirmation ran it at the other backend's larger size in rounds of their own (the same-batch rounds) and found "
    "them faster than its rounds at N beyond the noise (a rank test: with 4 rounds each, every round faster), in the "
    "same sitting; so its best is this size, the verdict compares the two backends at it, and its rate is the one "
    "searched at N (\"searched at batch N\").";
const char* const kWarmCacheNote =
    "Compile overhead \"cold, warm\" and break-even \"warm cache: N steps\": the first trial at a batch size compiles "
    "cold (every graph; the overhead every row reports), and later trials there, each a new process, compile warm "
    "from the study's compile cache (Inductor's FX-graph and AOTAutograd caches). A job on a machine where the same "
    "model, shapes and torch compiled before pays the warm overhead (the median of the warm trials), so it breaks "
    "even sooner; backends without a persistent cache (jit, cuda-graph) compile cold in every job. \"warm: no cold "
    "compile measured\": every trial of that backend at that size found its graphs in a cache shared across studies "
    "(TUNE_INDUCTOR_CACHE_DIR), so the overhead shown is a warm one.";
const char* const kBatchCutNote =
    "\"X's batch ramp stopped at N (budget), below Y's M\" in best vs best (and \"batch size in it\" in the verdict): "
    "the budget or the trial cap ended X's batch search before it tried size M, so the comparison credits Y with a "
    "batch size X never ran. A search now runs X at M before the confirmation's rounds and picks X's best over "
    "both; rows stored before that keep the mark until their search runs again.";
const char* const kStoredPickNote =
    "\"stored trial\" after a batch size: the search stored a smaller size as its best, but a throughput trial its "
    "study holds at this size (the screen's, which the budget-cut batch ramp never reached) was faster, so the row "
    "picks over every stored trial by the same rule; the rate was searched at the smaller size (\"searched at batch "
    "N\"), and rerunning the search searches this size's rate (the batch stage now picks over every stored trial).";
const char* const kBatchWithinNoiseNote =
    "\"A, B, C within the noise: rounds x% apart\" after a batch size: the confirmation ran this backend's best "
    "config in rounds, each trial a new process, and its samples/s moved by x% between them (highest less lowest, "
    "of their mean). The sizes listed ran, one trial each, within that share of the fastest size: a difference "
    "smaller than one config's own trial-to-trial spread is no finding, so any of them is as good an answer, and "
    "the size shown is the batch rule's pick among them.";
const char* const kReusedRateNote =
    "\"reused: 1 trial\" on a learning rate: the backend chose the batch and horizon its precision's first "
    "backend searched the rate at, so its trials there train the same model on the same data from the same seed, "
    "and only its step's numerics differ. One trial at the rate that search chose (after its second-seed check) "
    "scored within that search's seed spread of its loss from the same seed, so the rate stands for this backend "
    "without a search of its own (`lr_reuse`; the search's log gives both losses). A loss beyond the spread runs "
    "the search. Where that search's two rates tied (its cell's \"or ... (tie: ...)\", native's in the row), the "
    "tie holds for the reused rate too: the cell shows the rate the second-seed check chose.";
const char* const kRatesNotSeparatedNote =
    "\"not separated yet: loss x% below untrained\" on a learning rate: after the steps its rates ran, the chosen "
    "rate's loss lies less than 10% below the untrained model's (a classifier's: predicting its labels' "
    "frequencies, or chance, ln of its labels, in trials stored before tune recorded those; a language model's "
    "first-step loss), so the model has hardly learned and the rates' order says little about a "
    "real job. The rate shown is the search's pick, not an answer. The search doubles such a horizon and runs the "
    "rates again (\"N steps, lengthened past M\"), up to `lr_max_train_steps` while the budget fits them; a larger "
    "budget or `--job-steps` lets the rates separate.";
const char* const kUncomparedRateNote =
    "\"(R scored x% lower, not compared)\" after a learning rate: the store holds a trial of rate R at this batch "
    "that scored x% below the chosen rate on the seeds both ran, but the search did not compare the two (e.g. R "
    "came from an earlier search whose rate list differed). The chosen rate is the best of this search's own list, not "
    "of every rate tried; a gap within seed-to-seed noise (reports/lr-horizon.md) does not separate them.";
const char* const kRateEdgeNote =
    "\"≥\" (\"≤\") before a learning rate: it is the largest (smallest) rate tried and scored best, and the search "
    "did not go further (its bound `learning_rate_bounds`, the budget, or a search made before tune searched past "
    "the ends of its list), so the best rate may be larger (smaller). Unmarked rates scored better than a rate "
    "tried on each side.";
const char* const kRunnerUpNote =
    "Learning rate: the rate that scored the lowest loss at the end of short runs of the row's start and data (the "
    "\"start, data\" column), after the steps in its cell (`lr_horizon_steps`: 12 by default, a tenth of the job "
    "with `--job-steps`); a ranking after H steps predicts the one after about 10 H (reports/lr-horizon.md), and a "
    "longer job's best rate tends lower. From a random start it is the rate of a pretraining run's first steps, not "
    "a fine-tuning rate (fine-tuning a pretrained checkpoint takes far lower rates: search it with --weights). "
    "\"next +x%\": the runner-up rate's loss lies x% above the chosen one's. The chosen rate and its runner-up "
    "train again from a second seed (`seed_check`) and the means decide: \"seed spread y%\" is how far one rate's "
    "two seeds lie apart on this model at this horizon (the larger of the two rates'), and a margin within it is a "
    "tie, shown as both rates (\"1.0e-03 or 3.0e-04 (tie: ...)\"): the search cannot tell them apart. Without a "
    "spread (rows searched before the check ran on every pair) the margin stands alone. A classifier's rates are "
    "scored on held-out rows where the cell says so (\"scored on N held-out rows: accuracy x%\"): a share of its "
    "labelled rows (`held_out_share`, 10%, at most 1000) set aside before any trial trained, and the loss is the "
    "trained model's on them (its untrained loss: predicting their labels' frequencies). Without that mark, the "
    "loss of the last steps' training batches: it ranked first a rate whose model had learned only the majority "
    "label and, trained 10x longer, never learned more (reports/pretrained-check.md).";

std::string learning_rate_cell(const BestConfig& best) {
  const RateEdge edge = best.stop.lr_edge;
  return std::string(edge == RateEdge::above ? "≥" : edge == RateEdge::below ? "≤" : "") +
         strf("%.1e", best.learning_rate);
}

namespace {

// The runner-up's note: a tie within the model's seed spread, apart beyond it, or (one seed) its margin alone. A
// negative margin is a stored rate the search never compared with its choice: named, not hidden as "+-x%".
std::string runner_up_note(const BackendResult& r, const LearningRatePoint& rate, double margin) {
  if (margin < 0)
    return strf("%.1e scored %.1f%% lower%s, not compared", rate.learning_rate, -100 * margin,
                rate.seeds > 1 ? strf(", %d seeds", rate.seeds).c_str() : "");
  const auto spread = r.seed_spread();
  if (!spread) return strf("next +%.1f%%", 100 * margin) + (rate.seeds > 1 ? strf(", %d seeds", rate.seeds) : "");
  return strf(r.rate_tie() ? "tie: +%.1f%% within the seed spread %.1f%%" : "next +%.1f%%, seed spread %.1f%%",
              100 * margin, 100 * *spread);
}

}  // namespace

std::string learning_rate_cell(const BackendResult& r) {
  if (!r.screened_out.empty()) return "not searched";
  std::vector<std::string> notes;
  const StopReasons& stop = r.best.stop;
  if (stop.lr_horizon_steps < stop.lr_horizon_wanted)
    notes.push_back(strf("budget: %d of %d steps", stop.lr_horizon_steps, stop.lr_horizon_wanted));
  else if (const LearningRatePoint* chosen = r.chosen_rate_point())  // the steps it was ranked after
    notes.push_back(stop.lr_horizon_steps > stop.lr_horizon_wanted && stop.lr_horizon_wanted > 0
                        ? strf("%d steps, lengthened past %d", chosen->train_steps, stop.lr_horizon_wanted)
                        : strf("%d steps", chosen->train_steps));
  if (const LearningRatePoint* chosen = r.chosen_rate_point(); chosen && chosen->held_out_rows > 0)
    notes.push_back(strf("scored on %lld held-out rows: accuracy %.1f%%", static_cast<long long>(chosen->held_out_rows),
                         100 * chosen->held_out_accuracy));
  if (!r.rates_separated()) {
    const double learned = r.learned_share().value_or(0);
    notes.push_back(strf("not separated yet: loss %.1f%% %s untrained", 100 * std::fabs(learned),
                         learned >= 0 ? "below" : "above"));
  }
  const auto second = r.runner_up_with_margin();
  if (second) notes.push_back(runner_up_note(r, second->first, second->second));
  if (r.rate_batch_size > 0) notes.push_back(strf("searched at batch %d", r.rate_batch_size));
  if (stop.lr_cause == StopCause::reused) notes.push_back("reused: 1 trial");
  std::string text = learning_rate_cell(r.best);
  if (second && r.rate_tie()) text += strf(" or %.1e", second->first.learning_rate);
  for (size_t i = 0; i < notes.size(); ++i) text += (i ? "; " : " (") + notes[i];
  return notes.empty() ? text : text + ")";
}

std::vector<std::string> table_header() {
  return {"model", "tune", "libtorch", "instance", "precision", "seq", "start, data", "budget", "batch native",
          "batch compiled", "lr native (for: start, data, steps)",
          "lr compiled", "samples/s native", "samples/s compiled", "speedup (same batch)",
          "speedup (best vs best)", "verdict (paired, 95% CI)", "compile overhead", "break-even",
          "peak mem native", "peak mem compiled", "trials", "measured"};
}

std::vector<TableSection> table_sections(const TestedModelsTable& table) {
  std::vector<TableSection> sections{{"Tested models", {}}, {"Tiny variants (tests and CI)", {}}};
  for (const auto& row : table.rows) sections[row.tiny ? 1 : 0].rows.push_back(&row);
  sections.erase(std::remove_if(sections.begin(), sections.end(), [](const TableSection& s) { return s.rows.empty(); }),
                 sections.end());
  return sections;
}

std::string batch_limit_note(const BackendResult& r) {
  const StopReasons& stop = r.best.stop;
  switch (stop.batch_limit) {
    case BatchLimit::memory: return "OOM at " + std::to_string(stop.limit_batch_size);
    case BatchLimit::failure: return to_string(stop.limit_status) + " at " + std::to_string(stop.limit_batch_size);
    case BatchLimit::budget: return "budget";
    case BatchLimit::trials: return "max trials";
    case BatchLimit::range:
    case BatchLimit::throughput: break;
  }
  return "";
}

std::string batch_size_cell(const BackendResult& r, const std::string& backend) {
  std::string notes = backend;
  const std::string limit = r.screened_out.empty() ? batch_limit_note(r) : "screened out";
  if (!limit.empty()) notes += (notes.empty() ? "" : "; ") + limit;
  if (r.moved_by_rounds_from > 0)
    notes += (notes.empty() ? "" : "; ") + strf("the rounds: %d ran slower", r.moved_by_rounds_from);
  else if (r.rate_batch_size > 0)
    notes += (notes.empty() ? "" : "; ") + std::string("stored trial");
  const std::vector<int> within = r.batches_within_noise();
  std::vector<std::string> sizes;
  for (int size : within) sizes.push_back(std::to_string(size));
  if (within.size() > 1)
    notes += (notes.empty() ? "" : "; ") + join(sizes) +
             strf(" within the noise: rounds %.1f%% apart", 100 * r.batch_noise_share().value_or(0));
  return std::to_string(r.best.batch_size) + (r.best.batch_capped_by_range() ? "*" : "") +
         (notes.empty() ? "" : " (" + notes + ")");
}

std::string budget_cell(const TableRow& row) {
  if (row.search_budget_seconds <= 0) return "not recorded";
  const std::string budget = format_duration(row.search_budget_seconds);
  return row.screened_out() ? budget + ", screened out" : row.budget_cut() ? budget + ", cut" : budget;
}

std::string trials_cell(const TableRow& row) {
  const std::string over = row.sittings > 1 ? " over " + std::to_string(row.sittings) + " sittings" : "";
  return std::to_string(row.trials_run) + " in " + format_duration(row.trial_seconds) + over;
}

std::vector<std::string> screen_notes(const TestedModelsTable& table) {
  std::vector<std::string> notes;
  for (const auto& row : table.rows)
    for (const auto& b : row.backends)
      if (!b.screened_out.empty())
        notes.push_back(row.model + " " + row.precision + " on " + row.instance.name + ", " + b.backend + ": " +
                        b.screened_out);
  return notes;
}

std::vector<std::string> observer_notes(const TestedModelsTable& table) {
  std::vector<std::string> notes;
  for (const auto& row : table.rows)
    for (const auto& b : row.backends)
      for (const auto& o : b.observers)
        notes.push_back(strf("%s %s on %s, %s batch %d + %s: ", row.model.c_str(), row.precision.c_str(),
                             row.instance.name.c_str(), b.backend.c_str(), b.observer_batch, o.observer.c_str()) +
                        describe_observer_cost(o));
  return notes;
}

namespace {

std::string compile_figures(const Amortization& a, double overhead) {
  return strf("%.2fx at batch %d, compile %.1f s, break-even ", a.speedup, a.batch_size, overhead) +
         describe_break_even(a);
}

}  // namespace

std::string describe_other_compile(const TableRow& row, const OtherCompile& other) {
  std::string text = other.backend + " " + compile_figures(other.amortization, other.net_compile_overhead_seconds) +
                     (other.cold_overhead_measured ? "" : " (warm: no cold compile measured)");
  const BackendResult* c = row.compiled_result();
  if (c && row.is_confirmed())  // the row's own figure is its paired one, not its search trials'
    text += "; the row's " + c->backend + " (paired): " + paired_verdict_cell(row) + ", break-even " +
            break_even_cell(row);
  else if (c && row.amortization.batch_size > 0)
    text += "; the row's " + c->backend + ": " + compile_figures(row.amortization, row.compile_overhead_seconds);
  return text;
}

std::vector<std::string> other_compile_notes(const TestedModelsTable& table) {
  std::vector<std::string> notes;
  for (const auto& row : table.rows)
    for (const auto& other : row.other_compiles)
      notes.push_back(row.model + " " + row.precision + " on " + row.instance.name + ": " +
                      describe_other_compile(row, other));
  return notes;
}

std::vector<std::string> note_lines(const TestedModelsTable& table, const std::string& note) {
  if (note == kScreenNote) return screen_notes(table);
  if (note == kObserverNote) return observer_notes(table);
  if (note == kOtherCompilesNote) return other_compile_notes(table);
  return {};
}

namespace {

// Whether any row, or any backend of any row, shows what a note under the table explains: each note is added only
// where a row needs it.
template <typename Test>
bool any_row(const TestedModelsTable& table, Test test) {
  return std::any_of(table.rows.begin(), table.rows.end(), test);
}
template <typename Test>
bool any_backend(const TestedModelsTable& table, Test test) {
  return any_row(table, [&](const TableRow& r) { return std::any_of(r.backends.begin(), r.backends.end(), test); });
}

// A runner-up that scored below its chosen rate: a stored rate the search did not compare (kUncomparedRateNote).
bool uncompared_better_rate(const BackendResult& b) {
  const auto second = b.screened_out.empty() ? b.runner_up_with_margin() : std::nullopt;
  return second && second->second < 0;
}

// The notes on what a row's cells show, each only where one shows it, in the order they stand under the table.
std::vector<std::string> cell_notes(const TestedModelsTable& table) {
  std::vector<std::string> notes;
  const auto note_if = [&](bool needed, const char* note) { if (needed) notes.push_back(note); };
  note_if(any_backend(table, [](const BackendResult& b) { return b.best.stop.lr_edge != RateEdge::none; }),
          kRateEdgeNote);
  note_if(any_backend(table, uncompared_better_rate), kUncomparedRateNote);
  note_if(any_backend(table,
                      [](const BackendResult& b) { return b.rate_batch_size > 0 && b.moved_by_rounds_from == 0; }),
          kStoredPickNote);
  note_if(any_backend(table, [](const BackendResult& b) { return b.moved_by_rounds_from > 0; }), kMovedByRoundsNote);
  note_if(any_row(table, [](const TableRow& r) { return r.shows_warm() || !r.cold_overhead_measured; }),
          kWarmCacheNote);
  note_if(any_row(table, [](const TableRow& r) { return !r.batch_cut.empty(); }), kBatchCutNote);
  note_if(any_backend(table, [](const BackendResult& b) { return !b.rates_separated(); }), kRatesNotSeparatedNote);
  note_if(any_backend(table, [](const BackendResult& b) {
            return b.screened_out.empty() && b.best.stop.lr_cause == StopCause::reused;
          }),
          kReusedRateNote);
  note_if(any_backend(table, [](const BackendResult& b) { return b.batches_within_noise().size() > 1; }),
          kBatchWithinNoiseNote);
  note_if(any_batch_limit(table, BatchLimit::trials), kTrialCapNote);
  return notes;
}

}  // namespace

bool any_batch_limit(const TestedModelsTable& table, BatchLimit limit) {
  return any_backend(table, [limit](const BackendResult& b) { return b.best.stop.batch_limit == limit; });
}

std::vector<std::string> table_notes(const TestedModelsTable& table) {
  std::vector<std::string> notes{kSetupNote, kBatchLimitNote, kSpeedupNote, kPairedVerdictNote, kRunnerUpNote};
  for (const std::string& note : cell_notes(table)) notes.push_back(note);
  if (!screen_notes(table).empty()) notes.push_back(kScreenNote);
  if (!observer_notes(table).empty()) notes.push_back(kObserverNote);
  if (!other_compile_notes(table).empty()) notes.push_back(kOtherCompilesNote);
  if (any_row(table, [](const TableRow& r) { return r.ranks() > 1; })) notes.push_back(kRanksNote);
  if (any_batch_limit(table, BatchLimit::range)) notes.push_back(kRangeCapFootnote);
  return notes;
}

std::string measured_when(const TableRow& row) {
  const std::string first = day(row.first_trial_at), last = day(row.last_trial_at);
  return first == last ? last : first + " to " + last;
}

std::string paired_verdict_cell(const TableRow& row) {
  if (!row.native || !row.compiled) return "-";
  const PairedRatio& p = row.confirmed;
  const auto rounds = [](int n) { return std::to_string(n) + (n == 1 ? " round" : " rounds"); };
  if (p.verdict == PairedVerdict::unconfirmed) return "unconfirmed (" + rounds(p.rounds) + ")";
  const std::string words = p.verdict == PairedVerdict::faster   ? "compile"
                            : p.verdict == PairedVerdict::slower ? "don't compile"
                                                                 : "no difference within the noise";
  const std::string cut = row.batch_cut.empty() ? "" : "; batch size in it: a ramp was cut, see best vs best";
  return words + strf(": %.2fx (CI %.2f-%.2f, ", p.ratio, p.ci_low, p.ci_high) + rounds(p.rounds) + cut + ")";
}

// "; warm cache: 40 steps (1m 02s)" where the row shows a warm break-even apart, else nothing.
std::string warm_break_even(const TableRow& row) {
  if (!row.shows_warm() || !row.warm_amortization.worth_compiling) return "";
  const Amortization& w = row.warm_amortization;
  return strf("; warm cache: %.0f steps (%s)", w.break_even_steps, format_duration(w.break_even_seconds).c_str());
}

std::string break_even_cell(const TableRow& row) {
  if (!row.native || !row.compiled) return "-";
  if (!row.is_confirmed())
    return row.amortization.batch_size > 0 ? describe_break_even(row.amortization) + warm_break_even(row) : "-";
  const Amortization& a = row.confirmed_amortization;
  if (!a.worth_compiling) return "not worth compiling (paired)";
  const std::string range = row.break_even_steps_high > 0
                                ? strf("; 95%% CI %.0f-%.0f steps", row.break_even_steps_low, row.break_even_steps_high)
                                : "";
  return strf("%.0f steps of batch %d (%s%s)", a.break_even_steps, a.batch_size,
              format_duration(a.break_even_seconds).c_str(), range.c_str()) + warm_break_even(row);
}

std::string compile_overhead_cell(const TableRow& row) {
  if (!row.cold_overhead_measured) return strf("%.1f s (warm: no cold compile measured)", row.compile_overhead_seconds);
  if (!row.shows_warm()) return strf("%.1f s", row.compile_overhead_seconds);
  return strf("%.1f s cold, %.1f s warm", row.compile_overhead_seconds, row.warm_compile_overhead_seconds);
}

std::vector<std::string> table_cells(const TableRow& row) {
  const BackendResult* n = row.native_result();
  const BackendResult* c = row.compiled_result();
  const bool both = n && c && row.best_vs_best_speedup > 0, equal = both && row.amortization.batch_size > 0;
  return {row.model, row.tune_version, row.libtorch_version, describe_instance(row.instance), precision_cell(row),
          std::to_string(row.seq_len), row.start + "; " + row.data, budget_cell(row), cell(n, native_batch), cell(c, compiled_batch), cell(n, learning_rate),
          cell(c, learning_rate), throughput_cell(row, n), throughput_cell(row, c),
          same_batch_cell(row, equal),
          both ? best_vs_best_cell(row) : "-",
          paired_verdict_cell(row),
          equal ? compile_overhead_cell(row) : "-",
          break_even_cell(row), cell(n, peak_memory),
          cell(c, peak_memory),
          trials_cell(row), measured_when(row)};
}

}  // namespace tune
