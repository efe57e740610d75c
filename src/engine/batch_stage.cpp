// The batch stage (per pair): the batch strategy's throughput trials within ramp_budget_share of the pair's share
// of the budget. A screened pair's trial counts as its first (held to the budget like the rest, and standing when
// the budget refuses every size). The pick is made over every throughput trial the study stores, not only the
// ramp's: a faster size the budget kept the ramp from (the screen's batch, an earlier search's) is not ignored.
// No batch that ran ends the pair's search. Reads batch_tuner (and its options, through the space),
// ramp_learning_rate and ramp_budget_share.
#include <algorithm>

#include "engine/search_spaces.h"
#include "engine/search_stage.h"
#include "engine/stored_pick.h"
#include "engine/stage_list.h"
#include "trial/backend_registry.h"
#include "tuners/tuner_registry.h"
#include "util/table_format.h"

namespace tune {
namespace {

// When a size the study stores ran faster than the ramp's pick beyond the noise (the screen's, which a budget-cut
// ramp never reached; an earlier search's), the pick over every stored size (engine/stored_pick.h) replaces it; the
// stored trial joins the ramp's trials as reused, and its stop reason says so. A ramp a failure ended (out of
// memory, or another) keeps its pick: its limit stands.
void pick_over_stored(SearchRun& search, PairSearch& pair, DriveOutcome& ramp) {
  const auto failed = [](const DrivenTrial& d) { return !d.result.ok(); };
  if (!ramp.best || std::any_of(ramp.trials.begin(), ramp.trials.end(), failed)) return;
  const auto pick = overruling_stored_trial(search.db.trials(pair.outcome.study_id), ramp.best->second.samples_per_second);
  if (!pick) return;
  const std::string why = strf("the pick over every stored size is batch %d (%.2f samples/s): a stored size ran faster "
                               "beyond the noise than the ramp's batch %d (%.2f)", pick->first.batch_size,
                               pick->second.samples_per_second, ramp.best->first.batch_size,
                               ramp.best->second.samples_per_second);
  search.progress << pair.trials.label() << " " << why << "\n";
  ramp.stop_reason += (ramp.stop_reason.empty() ? "" : "; ") + why;
  const auto told = [&](const DrivenTrial& d) { return d.candidate.batch_size == pick->first.batch_size; };
  if (std::none_of(ramp.trials.begin(), ramp.trials.end(), told)) ramp.trials.push_back({pick->first, pick->second, true});
  ramp.best = pick;
}

// Where a compiled pair's ramp starts when compiled_ramp_from_native is set: the largest power of two at most half
// the native pick of its precision in this search, so the sizes far below it (each a cold compile for Inductor:
// ~100 s apiece for bert-base on a 2-core CPU) are not compiled. Every compiled backend's throughput curve in the
// committed table peaks at or above that start, or within 6% of it on a flat curve (46 of 50 picks the same; the
// other 4 pick a larger size at least as fast). The native pick is also the ramp's expected peak: from twice it
// on, one flat doubling ends the ramp (tuners/batch_ramp.h; docs/search.md has the check on the table's curves).
// Returns (start, native's pick); (0, 0): not a compiler, no native pick yet, or a native ramp the budget or the
// trial cap cut (its pick says little).
std::pair<int, int> compiled_ramp_start(const SearchRun& search, const BackendOutcome& pair) {
  if (!search.settings.compiled_ramp_from_native || !is_compiler(pair.backend)) return {0, 0};
  for (const auto& native : search.summary.backends) {
    if (native.backend != kNativeBackend || native.precision != pair.precision || !native.best) continue;
    const BatchLimit limit = native.best->stop.batch_limit;
    if (limit == BatchLimit::budget || limit == BatchLimit::trials) return {0, 0};
    int start = 1;
    while (start * 4 <= native.best->batch_size) start *= 2;
    return {start, native.best->batch_size};
  }
  return {0, 0};
}

class BatchStage : public SearchStage {
 public:
  explicit BatchStage(const SearchSettings& s)
      : tuner_(s.batch_tuner), learning_rate_(s.ramp_learning_rate), budget_share_(s.ramp_budget_share) {}
  std::string name() const override { return "batch"; }
  StageScope scope() const override { return StageScope::pair; }

  void run_pair(SearchRun& search, PairSearch& pair) override {
    pair.trials.next_stage(TrialPurpose::throughput, pair.start + budget_share_ * pair.seconds);
    TunerSpace space = batch_space(search.settings, search.request);
    const auto [start, native_pick] = compiled_ramp_start(search, pair.outcome);
    const std::string from_native = start > space.min_batch_size
        ? strf("started at %d, at most half eager's pick %d (compiled_ramp_from_native): no size below it compiled",
               start, native_pick)
        : "";
    if (!from_native.empty()) {
      search.progress << pair.trials.label() << " batch ramp " << from_native << "\n";
      space.min_batch_size = start;
    }
    space.expected_peak_batch_size = native_pick;
    const auto tuner = make_tuner(tuner_, space, search.request.seed);
    const Candidate screen{pair.screened ? pair.screened->batch_size : 0, learning_rate_, 0};
    if (pair.screened) pair.trials.learn_from(screen, pair.screened->result);
    DriveOutcome ramp = pair.trials.drive(*tuner, /*first_trial_free=*/pair.screened == nullptr);
    if (!ramp.best && pair.screened && pair.screened->result.ok()) {  // the budget refused every size
      ramp.trials.push_back({screen, pair.screened->result, true});
      ramp.best = ToldTrial{screen, pair.screened->result};
    }
    pick_over_stored(search, pair, ramp);
    pair.outcome.ramp_stop = ramp.stop_reason;
    if (!from_native.empty()) pair.outcome.ramp_stop += "; " + from_native;
    if (!ramp.best) {
      pair.outcome.failure = "no batch size ran: " + pair.outcome.ramp_stop;
      if (pair.outcome.backend != kNativeBackend) pair.outcome.failure += "; falls back to eager";
      return;
    }
    pair.ramp = std::move(ramp);
  }

 private:
  const std::string tuner_;
  const double learning_rate_, budget_share_;
};

}  // namespace

std::unique_ptr<SearchStage> make_batch_stage(const SearchSettings& settings) {
  return std::make_unique<BatchStage>(settings);
}

}  // namespace tune
