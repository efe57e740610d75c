// The batch stage (per pair): the batch strategy's throughput trials within ramp_budget_share of the pair's share
// of the budget. A screened pair's trial counts as its first (held to the budget like the rest, and standing when
// the budget refuses every size). No batch that ran ends the pair's search. Reads batch_tuner (and its options,
// through the space), ramp_learning_rate and ramp_budget_share.
#include "engine/search_spaces.h"
#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "trial/backend_registry.h"
#include "tuners/tuner_registry.h"

namespace tune {
namespace {

class BatchStage : public SearchStage {
 public:
  explicit BatchStage(const SearchSettings& s)
      : tuner_(s.batch_tuner), learning_rate_(s.ramp_learning_rate), budget_share_(s.ramp_budget_share) {}
  std::string name() const override { return "batch"; }
  StageScope scope() const override { return StageScope::pair; }

  void run_pair(SearchRun& search, PairSearch& pair) override {
    pair.trials.next_stage(TrialPurpose::throughput, pair.start + budget_share_ * pair.seconds);
    const auto tuner = make_tuner(tuner_, batch_space(search.settings, search.request), search.request.seed);
    const Candidate screen{pair.screened ? pair.screened->batch_size : 0, learning_rate_, 0};
    if (pair.screened) pair.trials.learn_from(screen, pair.screened->result);
    DriveOutcome ramp = pair.trials.drive(*tuner, /*first_trial_free=*/pair.screened == nullptr);
    if (!ramp.best && pair.screened && pair.screened->result.ok()) {  // the budget refused every size
      ramp.trials.push_back({screen, pair.screened->result, true});
      ramp.best = ToldTrial{screen, pair.screened->result};
    }
    pair.outcome.ramp_stop = ramp.stop_reason;
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
