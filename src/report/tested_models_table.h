// The table model: one row per model x libtorch x instance x precision x sequence length, each backend's best
// config (with its stored stop reasons) and the trials behind it, gathered from the store. `tune table` renders
// every study's rows, `tune --model` its own studies' rows, through the same writers.
#pragma once
#include <cstdint>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/amortization.h"
#include "stats/paired_ratio.h"
#include "store/database.h"
#include "trial/learned_share.h"  // kLearnedShare
#include "trial/observer_overhead.h"

namespace tune {

// 3: instance parts, batch limits, curves, trial counts and dates; 4: speed-up at one batch both ran (with that
// batch, best vs best apart, the net overhead), each rate's edge mark; 5: seeds per rate (the second-seed check);
// 6: the steps each rate was ranked after (train_steps per rate, lr_horizon_steps per backend); 7: what a reader needs
// to trust a row (start, data, search budget, trial time, the horizon asked for, tiny) and backends the screen dropped;
// 8: the paired verdict (speed-up best vs best over the confirmation's rounds, its 95% CI, the verdict) and the
// sittings the row's trials ran in; 9: MFU taken when the table is gathered, against the row's `mfu_peak` (the
// matmul peak measured on its instance when the store holds one, else a GPU's datasheet peak, else the search's
// estimate) named with its source and value, each backend's `mfu` against it and, on a GPU beside a measured
// peak, `mfu_datasheet`: the same field `mfu` no longer holds the search's stored figure; each backend's
// `learning_rate_batch_size` (the batch its rate was searched at, when a stored trial's batch overrules its stored
// best), `learning_rate_learned_share` and `learning_rates_separated` (whether the model learned enough to rank rates),
// `learning_rate_tie_with` (the runner-up a tie within the seed spread shows beside the rate); the row's
// `paired_same_batch` (the confirmation's rounds at the compiled backend's batch)
// 10: backends' `batch_noise_share` and `batch_sizes_within_noise` (BackendResult::batches_within_noise)
// 11: a classifier's rates scored on held-out rows (data/held_out.h): `held_out_rows` and `held_out_accuracy` per
// rate of the curve, and each backend's `learning_rate_held_out_accuracy` (null where scored on the training loss)
// 12: each backend's `confirmation_rounds` (its best config over the confirmation's rounds: rounds, geometric mean
// samples/s, MFU; null under two), what the table's samples/s cell shows in a row with a paired verdict
// 13: the row's `batch_cut` (TableRow::batch_cut: best vs best mixes in a size one side's cut ramp never ran; null
// where fair); each backend's `batch_moved_by_rounds_from` (BackendResult::moved_by_rounds_from; null: not moved)
// 14: the row's `warm` (the decisive comparison with a warm compile: net overhead, break-even; null where no warm
// trial was measured) and `cold_overhead_measured` (false: every trial at that size compiled warm)
// 15: each backend's `observers` (its observer trials: each tool's step time with it over without, CI, verdict, graph
// counts; empty where none ran) and `data_parallel` (a data-parallel row's scaling figures; null for one process)
// 16: the row's `other_compiles` (TableRow::other_compiles: each compiled backend but the row's against native at a
// batch both ran, from the search's trials: speed-up, net cold compile overhead, break-even; empty where none)
// 17: a data-parallel backend's `ddp_without_comm` (the Python worker's DDP: rank 0's unsynced step over its solo
// step, ratio, 95% CI and rounds; null where the trial had no unsynced blocks)
constexpr int kTableJsonSchemaVersion = 17;
constexpr double kSittingGap = 3600;  // seconds between two trials of a row that start a new sitting

struct BatchPoint {
  int batch_size = 0;
  TrialStatus status = TrialStatus::ok;
  double samples_per_second = 0;  // 0 unless ok
  int64_t peak_memory_bytes = 0;
  double compile_overhead_seconds = 0;  // the trial's warm-up overhead (compile + first steps - steady steps)
  TrialResult trial;                    // the trial itself: what a best moved to this size takes its figures from
};

struct LearningRatePoint {
  double learning_rate = 0;
  TrialStatus status = TrialStatus::ok;
  double score_loss = 0;  // mean loss of the last steps (over its seeds); meaningless unless ok
  int seeds = 1;          // trials of this rate at its longest length, one per seed (the second-seed check)
  std::map<uint64_t, double> seed_scores;  // each seed's score: rates compare on the seeds both ran
  int train_steps = 0;    // the length of the trials that speak for it: the horizon it was ranked at
  std::string lr_schedule = "constant";  // ...their schedule (trial/lr_schedule.h) and warm-up steps
  int lr_warmup_steps = 0;
  double start_loss = 0;  // their first step's loss (before any update: the untrained model's), mean over seeds
  double label_prior_loss = 0;  // a classifier's: predicting the labels' frequencies (trial_result.h), mean over seeds
  int64_t held_out_rows = 0;      // a classifier's rows scored (data/held_out.h); 0: scored on the training loss
  double held_out_accuracy = 0;   // ... their accuracy, mean over seeds
};


// A config's samples/s over the confirmation's rounds (BackendResult::rounds_speed).
struct RoundsSpeed {
  double samples_per_second = 0;  // geometric mean of the rounds that ran
  int rounds = 0;
};

// One backend's result in a row: its best config (with why its searches stopped) and the curves behind it.
struct BackendResult {
  std::string backend;
  BestConfig best;
  std::vector<BatchPoint> batch_curve;  // throughput trials, by batch size
  std::vector<LearningRatePoint> lr_curve;  // learning-rate trials at the chosen batch, by rate
  int64_t memory_limit_bytes = 0;       // what a trial was allowed to use (0: no cap)
  // Samples/s of each repeat of its best batch's throughput trial (the confirmation's rounds, by repeat; 0: the
  // round failed).
  std::map<int, double> repeats;
  // The same for every batch the confirmation repeated (batch -> round -> samples/s): native at the compiled
  // backend's batch too, where the two bests differ in batch.
  std::map<int, std::map<int, double>> repeats_by_batch;
  // Its observer trials (engine/observe_stage.cpp): each tool's cost on this step, the last measured per tool, at
  // observer_batch (the row's batch when they ran); empty where none ran.
  std::vector<ObserverOverhead> observers;
  int observer_batch = 0;
  // A data-parallel row (step options ranks=N): the figures of its throughput trial at the best batch (ranks 0
  // where none).
  DataParallelPart data_parallel;
  // The batch its rate was searched at, when the row shows another (0: the same): the search stored a best that
  // its study's own stored trials overrule (a faster size its budget-cut ramp never reached; engine/stored_pick.h),
  // so its rate comes from the old batch.
  int rate_batch_size = 0;
  // The batch its ramp picked, when the confirmation's rounds moved its best from it (0: they did not): its rounds at
  // the other side's larger batch (the same-batch rounds) ran faster than its rounds at the ramp's pick beyond their
  // noise (a rank test: with four rounds each, every one faster), so its one ramp trial there was a slow one; the
  // row then shows it at that batch (rate_batch_size says where its rate was searched), and the verdict compares
  // the two there.
  int moved_by_rounds_from = 0;
  // Compile overheads by batch, from its throughput trials there (the search's and the confirmation's): cold ones
  // (compiled every graph, or a backend without a persistent cache, which compiles in every process) and warm ones
  // (every graph from the study's compile cache, in a new process: what a job pays on a machine where the same
  // model compiled before), each the median of the trials of its kind (TrialResult::compile_cache).
  std::map<int, double> cold_overhead_by_batch, warm_overhead_by_batch;
  // The overhead a job at `batch` pays cold (nothing where no cold trial ran there), and warm: the cold one for a
  // backend without a persistent cache (trial/backend_registry.h keeps_compile_cache), nothing where none warm ran there
  // (as in trials stored before they recorded their cache's use).
  std::optional<double> cold_overhead(int batch) const;
  std::optional<double> warm_overhead(int batch) const;
  // Why the screen dropped it, when it did and no search ran: `best` is then its screening trial (batch, speed,
  // memory; no learning rate).
  std::string screened_out;
  // The next-best rate at the chosen batch and how far its loss lies above the chosen one's (a share), compared
  // on the seeds both ran (a rate the second-seed check ran again, on both); none when fewer than two rates ran.
  // A small margin may be within seed-to-seed noise.
  std::optional<LearningRatePoint> runner_up() const;
  // The chosen rate's point of lr_curve (nullptr where no learning-rate trial of it is stored at this batch).
  const LearningRatePoint* chosen_rate_point() const;
  std::optional<std::pair<LearningRatePoint, double>> runner_up_with_margin() const;
  double runner_up_margin() const;
  // The loss of the untrained model its rates are judged against (0: unknown): chance for a classifier, else the
  // chosen rate's first-step loss.
  double untrained_loss = 0;
  // How far the chosen rate's loss lies below the untrained loss (a share); nothing without both.
  std::optional<double> learned_share() const;
  // Whether its rates' ranking can stand: the chosen rate learned at least kLearnedShare (true when unknown).
  bool rates_separated() const;
  // This model's seed-to-seed spread at the rate's horizon: each of the chosen rate and its runner-up, its seeds'
  // scores apart (highest less lowest) as a share of their mean, the larger of the two; nothing unless both ran at
  // least two seeds (the second-seed check).
  std::optional<double> seed_spread() const;
  // Whether the runner-up lies within that spread of the chosen rate: the search cannot tell them apart, so the
  // table shows both.
  bool rate_tie() const;
  // How far one config's throughput moves from one trial process to the next, measured on this row: the
  // confirmation's rounds at the best batch (each a new process), highest less lowest as a share of their mean;
  // nothing without two rounds that ran.
  std::optional<double> batch_noise_share() const;
  // Its best config's speed over the confirmation's rounds that ran there: their geometric mean, and how many;
  // nothing under two. The rounds ran in one sitting, alternating with the other side's, so in a confirmed row they
  // are what its samples/s and speed-up say, where the search's one trial may come from another sitting.
  std::optional<RoundsSpeed> rounds_speed() const;
  // The sizes whose one throughput trial lies within that share of the fastest size's: a difference smaller than
  // one config's own trial-to-trial spread is no finding, so any of them answers the batch question (the pick among
  // them is batch_pick.h's). Sorted; empty without a noise share, and for a best the rounds moved.
  std::vector<int> batches_within_noise() const;
};

// Where the peak a row's MFU is taken against comes from.
enum class PeakSource {
  none,       // no peak known: no MFU
  measured,   // the matmul peak measured on the row's instance, libtorch and precision (instance/matmul_peak.h)
  datasheet,  // a GPU's datasheet peak (no measured one stored)
  estimate,   // what the search divided by (a CPU's clock estimate, a profile's figure): the stored MFU
};
std::string to_string(PeakSource source);

// The peak a row's MFU is taken against, read from the store when the table is gathered, so rows stored before the
// peak was measured are taken against it without running their trials again.
struct RowPeak {
  PeakSource source = PeakSource::none;
  double flops = 0;            // FLOP/s; an estimate's is read back from a stored MFU (0: none to read)
  std::string method;          // how it was measured, or the datasheet's entry
  std::string measured_at;     // UTC, for a measured one
  double datasheet_flops = 0;  // a GPU's datasheet peak beside a measured one (0: a CPU or an unknown GPU)
};

// A backend's MFU: its best config's matmul FLOPs per second over the row's peak, and over a GPU's datasheet peak
// beside a measured one; 0 where unknown. Above 1 of a measured peak is an error (a FLOP count or a clock wrong).
struct Mfu {
  double of_peak = 0;
  double of_datasheet = 0;
};

// The instance a row was measured on: its name and hardware, as its studies store them.
struct TableInstance {
  std::string name;  // instance or profile name
  InstanceHardware hardware;
};
// "cpu (1x Intel Xeon, 2 threads, 7.8 GiB)", in the vendor table's style.
std::string describe_instance(const TableInstance& instance);

// A compiled backend of the row other than its fastest (TableRow::compiled), against native at the batch both ran
// (the other's pick where native ran it, else the largest both ran), from the search's own trials: no paired rounds
// ran for it. A cheaper compile (inductor:regional against inductor) can pay off sooner for a short job.
struct OtherCompile {
  std::string backend;
  double net_compile_overhead_seconds = 0;  // cold, net of native's warm-up, with a job's extra shapes (as the row's)
  bool cold_overhead_measured = true;       // false: every trial of it at that batch compiled warm
  Amortization amortization;                // at that batch: speed-up, break-even
};

struct TableRow {
  std::string model;
  std::string libtorch_version;
  std::string tune_version;
  TableInstance instance;
  std::string precision;
  std::string step_options;
  int seq_len = 0;
  std::vector<BackendResult> backends;  // eager first, then by name
  std::optional<size_t> native;         // index of eager in backends
  std::optional<size_t> compiled;       // index of the fastest compiled backend
  // The headline: compiled over native at one batch both ran (the compiled backend's chosen batch when native
  // ran it, else the largest both ran), break-even net of native's own warm-up and counting a job's extra
  // shapes (amortization.h). Zero without both, or without a common batch.
  Amortization amortization;
  double native_samples_per_second = 0;    // at amortization.batch_size
  double compiled_samples_per_second = 0;
  double compile_overhead_seconds = 0;     // net, as amortized: always a cold compile's (see below)
  // Where the compiled backend's trials at the amortized batch all compiled warm (a cache shared across studies,
  // TUNE_INDUCTOR_CACHE_DIR), no cold overhead was measured: the overhead above is then theirs and says so.
  bool cold_overhead_measured = true;
  // The decisive comparison again with a warm compile (the compiled backend's warm overhead in a new process, net of
  // native's), for a job on a machine where the same model compiled before; warm_measured false where no warm
  // trial ran at that batch (its figures are then zero).
  bool warm_measured = false;
  double warm_compile_overhead_seconds = 0;
  Amortization warm_amortization;
  // Whether the row's compiled backend keeps a persistent compile cache and a warm figure was measured for it: the
  // cells then give cold and warm apart.
  bool shows_warm() const;
  // Best vs best: each backend at its own chosen batch (batch size and compiling both in it), labelled apart.
  double best_vs_best_speedup = 0;
  // The verdict: compiled over native, each at its best, from the confirmation's paired rounds (engine/
  // confirm_stage.cpp): its interval says faster, slower or no difference; unconfirmed without two rounds.
  PairedRatio confirmed;
  // The same at one batch, the larger of the two bests' (the compiled backend's in rows confirmed before the
  // confirmation measured there): compiling alone, batch size apart. Equal to `confirmed` when the two bests share
  // their batch; unconfirmed when no such rounds ran.
  PairedRatio confirmed_equal_batch;
  int confirmed_equal_batch_size = 0;  // its batch (0: none)
  // The decisive comparison, each backend at its best, from those rounds: native at the geometric mean of its
  // rounds' samples/s, compiled at that times the paired speed-up, steps counted at compiled's batch, the net
  // compile overhead of the two best configs; worth compiling only when the verdict is "faster". Zero when
  // unconfirmed. Its break-even at the interval's ends: fewest steps (speed-up at ci_high), most (at ci_low).
  Amortization confirmed_amortization;
  double break_even_steps_low = 0, break_even_steps_high = 0;
  // Where best vs best mixes in a batch size one side never ran: that side's batch ramp stopped below the other's
  // batch for want of budget or trials (engine/stored_pick.h ramp_cut_below), "eager's ramp stopped at 2 (budget),
  // below jit's 32"; empty where the comparison is fair. A search since the confirmation ran that size first no
  // longer leaves one; rows stored before it may.
  std::string batch_cut;
  // The row's other searched compiled backends, by name (empty with one compiled backend).
  std::vector<OtherCompile> other_compiles;
  // What the answer rests on: the confirmed comparison when the rounds ran, else the equal-batch one.
  // Whether the confirmation's rounds gave the row a paired verdict (two or more rounds).
  bool is_confirmed() const { return confirmed.verdict != PairedVerdict::unconfirmed; }
  const Amortization& decisive() const { return is_confirmed() ? confirmed_amortization : amortization; }
  RowPeak peak;                         // what its MFU is taken against
  int trials_run = 0;                   // over every backend of the row
  // Runs of its trials more than kSittingGap apart: a search the budget cut and a rerun resumed hours later is two.
  int sittings = 0;
  std::vector<std::time_t> trial_times;  // each trial's finish, the sittings are counted from
  double trial_seconds = 0;             // their wall time together
  double search_budget_seconds = 0;     // the --budget of the searches behind it (the largest; 0: not recorded)
  bool tiny = false;                    // a family's tiny variant (tests and CI): the table's second section
  std::string start;                    // "random" (initialised) or "pretrained" (--weights)
  std::string data;                     // what it trained on: "masked_lm: tune's corpus, hashed words"
  std::string first_trial_at;           // ISO times of the row's first and last finished trial
  std::string last_trial_at;

  const BackendResult* native_result() const { return native ? &backends[*native] : nullptr; }
  const BackendResult* compiled_result() const { return compiled ? &backends[*compiled] : nullptr; }
  // Whether the budget ended any part of its searches (a batch search, a rate search, a rate horizon).
  bool budget_cut() const;
  // Whether every backend of it was screened out (no search ran for its precision).
  bool screened_out() const;
  // The processes each of its steps ran over: its step options' ranks=N (1 for a one-process row).
  int ranks() const;
};

struct TestedModelsTable {
  std::string source;  // the database it was read from, as the user named it
  std::vector<TableRow> rows;
};

// Reads every study with a best config, and every study the screen dropped without one (only `study_ids` when
// given: a search's own); studies differing only in backend share a row. Full-size models' rows come first, then
// the tiny variants', each in key order.
TestedModelsTable gather_tested_models(const Database& db, const std::string& source,
                                       const std::optional<std::vector<int64_t>>& study_ids = std::nullopt);

// A backend's MFU against its row's peak (an estimate's: the stored figure), at its best config's samples/s.
Mfu backend_mfu(const TableRow& row, const BackendResult& result);
// The same at another speed of that config: its confirmation rounds' (RoundsSpeed).
Mfu backend_mfu_at(const TableRow& row, const BackendResult& result, double samples_per_second);

// Cumulative wall time after `steps` steps of amortization.batch_size: native, and compiled with its overhead.
double native_seconds_at(const TableRow& row, double steps);
double compiled_seconds_at(const TableRow& row, double steps);

}  // namespace tune
