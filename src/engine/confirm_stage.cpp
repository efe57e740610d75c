// The confirmation (search scope, after the pairs): per precision the search covered, native at its best batch
// against the fastest compiled backend at its own (of every study of the row, as the table picks them, each at the
// batch its row shows: engine/stored_pick.h), measured again in alternating rounds of one sitting (round 1 native
// then compiled, round 2 compiled then native, ...), each trial a new process (TrialSpec::repeat 1, 2, ...). The table's verdict
// and its interval come from these rounds (stats/paired_ratio.h), not from trials taken minutes apart in different
// stages. Where the two bests differ in batch, the two at one batch follow in rounds of their own (at the larger of
// the two batches, the smaller side run there first where it never was), each only when the budget fits it:
// compiling alone, batch size apart. Before the rounds, a side whose batch ramp the budget cut below the other's
// batch runs that batch once (tried_where_a_ramp_was_cut). Reads confirm_rounds (0: no confirmation) and
// confirm_budget_share (the budget it reserves).
#include <algorithm>
#include <array>

#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "engine/stored_pick.h"
#include "stats/paired_ratio.h"
#include "trial/backend_registry.h"
#include "util/table_format.h"

namespace tune {
namespace {

// One side of the comparison: its outcome, its trials (throughput, repeats) and the candidate it repeats.
struct Side {
  BackendOutcome& outcome;
  StudyTrials trials;
  Candidate candidate;
  // The first trial teaches the budget's predictor what a repeat costs; a repeat times fewer steps than a search's
  // trial where confirm_measure_time says so.
  Side(SearchRun& search, BackendOutcome& o, const ToldTrial& first)
      : outcome(o), trials(search, o, search.budget), candidate(first.first) {
    trials.learn_from(first.first, first.second);
    trials.set_measure_seconds(search.settings.confirm_measure_seconds);
  }
};

class ConfirmStage : public SearchStage {
 public:
  explicit ConfirmStage(const SearchSettings& s) : rounds_(s.confirm_rounds), share_(s.confirm_budget_share) {}
  std::string name() const override { return "confirm"; }
  StageScope scope() const override { return StageScope::search; }
  double budget_share() const override { return rounds_ > 0 ? share_ : 0; }

  void run_search(SearchRun& search) override {
    if (rounds_ <= 0) return;
    for (const auto& precision : searched_precisions(search.summary)) confirm_precision(search, precision);
  }

 private:
  void confirm_precision(SearchRun& search, const std::string& precision) const {
    std::vector<BackendOutcome> outcomes = row_outcomes(search, precision);
    if (tried_where_a_ramp_was_cut(search, precision, outcomes)) outcomes = row_outcomes(search, precision);
    // not grown after: pick's pointers hold
    BackendOutcome* native = pick_row_side(outcomes, false);
    BackendOutcome* compiled = pick_row_side(outcomes, true);
    if (!native || !compiled) return;
    const auto native_first = throughput_trial_at(search.db, *native, native->best->batch_size);
    const auto compiled_first = throughput_trial_at(search.db, *compiled, compiled->best->batch_size);
    if (!native_first || !compiled_first) return;
    std::array<Side, 2> best_vs_best{Side{search, *native, *native_first}, Side{search, *compiled, *compiled_first}};
    confirm_pair(search, precision, best_vs_best, 2);
    // The bests differ in batch: compiling alone is measured apart, both at the larger of the two (the table's "same
    // batch" speed-up, and where it moves the smaller side's best when its rounds there beat its pick's beyond the
    // noise), the smaller side's trial there first where it has none, each only when the budget fits it (none free).
    const int native_batch = native->best->batch_size, compiled_batch = compiled->best->batch_size;
    if (native_batch != compiled_batch) {
      const int batch = std::max(native_batch, compiled_batch);
      const bool native_smaller = native_batch < batch;
      BackendOutcome& smaller = native_smaller ? *native : *compiled;
      if (const auto there = trial_at_or_run(search, precision, smaller, batch, native_smaller ? *native_first
                                                                                                : *compiled_first)) {
        std::array<Side, 2> one_batch{Side{search, *native, native_smaller ? *there : *native_first},
                                      Side{search, *compiled, native_smaller ? *compiled_first : *there}};
        confirm_pair(search, precision, one_batch, 0);
      }
    }
    count_in_summary(search.summary, *native);
    count_in_summary(search.summary, *compiled);
  }

  // Where one side's batch ramp was cut (budget, trial cap) below the other side's batch, that side's throughput
  // trial at the other's batch runs first, on the reserve: the step its ramp never took. The pick over stored
  // trials then takes it where it is faster, so best vs best no longer credits the other side with a batch size
  // this one never ran. Whether such a trial ran (the outcomes are then read again).
  static bool tried_where_a_ramp_was_cut(SearchRun& search, const std::string& precision,
                                         std::vector<BackendOutcome>& outcomes) {
    BackendOutcome* native = pick_row_side(outcomes, false);
    BackendOutcome* compiled = pick_row_side(outcomes, true);
    if (!native || !compiled) return false;
    for (auto [cut, other] : {std::make_pair(native, compiled), std::make_pair(compiled, native)}) {
      const int batch = other->best->batch_size;
      if (!ramp_cut_below(*cut->best, throughput_sizes_tried(search.db.trials(cut->study_id)), batch)) continue;
      search.progress << "[confirm " << precision << "] "
                      << describe_ramp_cut(cut->backend, *cut->best, other->backend, batch)
                      << strf(": %s at %d runs first, so that best vs best does not credit %s with a batch size %s "
                              "never ran\n",
                              cut->backend.c_str(), batch, other->backend.c_str(), cut->backend.c_str());
      const auto first = throughput_trial_at(search.db, *cut, cut->best->batch_size);
      StudyTrials trials(search, *cut, search.budget);
      trials.stored_or_run(Candidate{batch, first ? first->first.learning_rate : cut->best->learning_rate, 0});
      count_in_summary(search.summary, *cut);
      return true;  // one step: the other side's batch then stands against the cut side's best
    }
    return false;
  }

  // The study's throughput trial at `batch`, else a new one at `first`'s rate when the budget fits it; nothing when
  // the budget refuses it or it fails (out of memory at that size: the smaller side's pick stands). The new one is
  // stored as kSameBatchFirstRepeat, not as the search's own: only the rounds there move a best (the table's rule,
  // every round beating), and a rerun's batch stage, which picks over the search's own trials, takes the path the
  // first search took (a single trial picked up there sent the rerun into a rate search at that batch).
  static std::optional<ToldTrial> trial_at_or_run(SearchRun& search, const std::string& precision, BackendOutcome& o,
                                                  int batch, const ToldTrial& first) {
    if (auto there = throughput_trial_at(search.db, o, batch)) return there;
    StudyTrials trials(search, o, search.budget);
    trials.learn_from(first.first, first.second);
    trials.set_repeat(kSameBatchFirstRepeat);
    const Candidate candidate{batch, first.first.learning_rate, 0};
    if (const auto refusal = trials.refuses(candidate)) {
      search.progress << "[confirm " << precision << "] " << o.backend << " at batch " << batch
                      << " for the same-batch rounds: " << *refusal << "\n";
      return std::nullopt;
    }
    const TrialResult result = trials.stored_or_run(candidate);
    if (!result.ok()) return std::nullopt;
    return ToldTrial{candidate, result};
  }

  // Up to confirm_rounds alternating rounds of the two sides, the first `free_rounds` whatever the budget says (fewer
  // than two give no interval), the verdict said in the progress.
  void confirm_pair(SearchRun& search, const std::string& precision, std::array<Side, 2>& sides, int free_rounds) const {
    const std::string head = strf("[confirm %s] %s batch %d vs %s batch %d", precision.c_str(),
                                  sides[0].outcome.backend.c_str(), sides[0].candidate.batch_size,
                                  sides[1].outcome.backend.c_str(), sides[1].candidate.batch_size);
    std::vector<double> ratios;
    for (int round = 1; round <= rounds_; ++round) {
      if (round > free_rounds && refused(sides, round)) {
        search.progress << head << ": round " << round << " of " << rounds_ << " does not fit the budget; "
                        << ratios.size() << " rounds\n";
        break;
      }
      if (const auto ratio = run_round(sides, round)) ratios.push_back(*ratio);
    }
    search.progress << head << ": " << describe_rounds(paired_ratio(ratios, 0.95)) << "\n";
  }

  // "1.04x (95% CI 0.43-2.52) over 2 paired rounds: no difference"; under two rounds there is no interval to give.
  static std::string describe_rounds(const PairedRatio& p) {
    if (p.rounds == 0) return "no round ran (the budget, or a failed trial): unconfirmed";
    if (p.rounds == 1) return strf("%.2fx in its one round, no interval: unconfirmed", p.ratio);
    return strf("%.2fx (95%% CI %.2f-%.2f) over %d paired rounds: ", p.ratio, p.ci_low, p.ci_high, p.rounds) +
           to_string(p.verdict);
  }

  // The rounds' trials count in this search's outcome of that study, when it has one (the summary's trial counts).
  static void count_in_summary(SearchSummary& summary, const BackendOutcome& confirmed) {
    for (auto& o : summary.backends)
      if (o.study_id == confirmed.study_id) {
        o.trials_run += confirmed.trials_run;
        o.trials_reused += confirmed.trials_reused;
        o.trial_seconds += confirmed.trial_seconds;
      }
  }

  // Whether the budget refuses either side's trial of `round` (the first two rounds run on the reserve regardless:
  // fewer than two give no interval).
  static bool refused(std::array<Side, 2>& sides, int round) {
    for (auto& side : sides) {
      side.trials.set_repeat(round);
      if (side.trials.refuses(side.candidate)) return true;
    }
    return false;
  }

  // Both sides once, native first on odd rounds and compiled first on even ones; compiled over native samples/s,
  // or nothing when either failed.
  static std::optional<double> run_round(std::array<Side, 2>& sides, int round) {
    double samples_per_second[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const int i = round % 2 == 1 ? k : 1 - k;
      sides[i].trials.set_repeat(round);
      const TrialResult r = sides[i].trials.stored_or_run(sides[i].candidate);
      samples_per_second[i] = r.ok() ? r.samples_per_second : 0;
    }
    if (samples_per_second[0] <= 0 || samples_per_second[1] <= 0) return std::nullopt;
    return samples_per_second[1] / samples_per_second[0];
  }

  const int rounds_;
  const double share_;
};

}  // namespace

std::unique_ptr<SearchStage> make_confirm_stage(const SearchSettings& settings) {
  return std::make_unique<ConfirmStage>(settings);
}

}  // namespace tune
