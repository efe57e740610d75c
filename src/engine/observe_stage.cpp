// The observer trials (search scope, last; only when `--observers` names tools): per precision the search covered,
// native at its best and the fastest compiled backend at its own (the configs the row shows, as the confirmation
// picks them) each timed without and with one observer, in alternating blocks of one process (trial/paired_trial.h):
// what the tool costs that step, and what it does to a compiled step's graphs. One trial per side and observer,
// stored in the side's study (purpose paired), so a rerun reuses them. They run after the search, outside --budget:
// the user asked for them by name; each is held to the trial timeout. Reads observers, observer_rounds and
// observer_block_steps.
#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "trial/observer_overhead.h"
#include "util/table_format.h"

namespace tune {
namespace {

class ObserveStage : public SearchStage {
 public:
  explicit ObserveStage(const SearchSettings& s)
      : observers_(s.observers), rounds_(s.observer_rounds), block_steps_(s.observer_block_steps) {}
  std::string name() const override { return "observe"; }
  StageScope scope() const override { return StageScope::search; }

  void run_search(SearchRun& search) override {
    for (const auto& precision : searched_precisions(search.summary)) {
      std::vector<BackendOutcome> outcomes = row_outcomes(search, precision);
      for (const bool compiled : {false, true})
        if (BackendOutcome* side = pick_row_side(outcomes, compiled)) observe_side(search, *side);
    }
  }

 private:
  void observe_side(SearchRun& search, BackendOutcome& side) const {
    const auto first = throughput_trial_at(search.db, side, side.best->batch_size);
    if (!first) return;
    StudyTrials trials(search, side, search.budget);
    trials.next_stage(TrialPurpose::paired, 1e18);  // outside --budget (the stage's comment says why)
    for (const auto& observer : observers_) {
      PairedSettings paired;
      paired.observers = {observer};
      paired.rounds = rounds_;
      paired.block_steps = block_steps_;
      trials.set_paired(paired);
      const TrialResult r = trials.stored_or_run(first->first);
      search.progress << "[observe " << side.precision << "] " << side.backend << " batch "
                      << first->first.batch_size << " + " << observer << ": " << describe(r) << "\n";
    }
  }

  static std::string describe(const TrialResult& r) {
    const auto found = observer_overheads(r);
    if (found.empty()) return "no measurement: " + to_string(r.status) + " " + r.error_stage + ": " +
                              r.error_message.substr(0, 200);
    return describe_observer_cost(found.front()) + "\n  the tool: " + found.front().summary;
  }

  const std::vector<std::string> observers_;
  const int rounds_;
  const int block_steps_;
};

}  // namespace

std::unique_ptr<SearchStage> make_observe_stage(const SearchSettings& settings) {
  return std::make_unique<ObserveStage>(settings);
}

}  // namespace tune
