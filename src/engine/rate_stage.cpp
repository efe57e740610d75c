// The learning-rate stage of objective two-stage (per pair): the rate strategy at the batch stage's choice, inside
// the edge extension, over the rest of the pair's share. The first backend of a precision searches the list; with
// lr_transfer the later ones check the scaling rules' rates from its result (lr_sweep over the same, square-root
// and linear rates, from the square-root one). Leaves the best config: the batch stage's speed figures with the
// rate found. Reads lr_tuner (and its options, through the space) and lr_transfer.
#include "engine/search_spaces.h"
#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "tuners/batch_scaling.h"
#include "tuners/composite/rate_edge_extension.h"
#include "util/check.h"
#include "util/table_format.h"

namespace tune {
namespace {

class RateStage : public SearchStage {
 public:
  explicit RateStage(const SearchSettings& s) : tuner_(s.lr_tuner), transfer_(s.lr_transfer) {}
  std::string name() const override { return "learning-rate"; }
  StageScope scope() const override { return StageScope::pair; }

  void run_pair(SearchRun& search, PairSearch& pair) override {
    TUNE_CHECK(pair.ramp && pair.ramp->best, "the learning-rate stage runs after a batch stage that chose a batch");
    const int batch = pair.ramp->best->first.batch_size;
    std::optional<RateReference>& reference = search.references[pair.outcome.precision];
    const auto rate_tuner = make(search, batch, reference);
    pair.trials.next_stage(TrialPurpose::learning_rate, pair.end());
    DriveOutcome lr = pair.trials.drive(*rate_tuner, /*first_trial_free=*/true);
    BackendOutcome& outcome = pair.outcome;
    outcome.lr_stop = pair.horizon_words + lr.stop_reason;
    if (reference && transfer_)
      outcome.lr_stop = strf("from %s's %.1e at batch %d by the scaling rules: ", reference->backend.c_str(),
                             reference->learning_rate, reference->batch_size) + outcome.lr_stop;
    else if (lr.best)
      reference = RateReference{outcome.backend, batch, lr.best->first.learning_rate};
    BestConfig best = speed_config(search, pair, *pair.ramp->best);
    if (lr.best) {
      best.learning_rate = lr.best->first.learning_rate;
      best.lr_score_loss = lr.best->second.score_loss;
    }
    best.stop.lr_cause = lr.cause;
    best.stop.lr_stop = outcome.lr_stop;
    best.stop.lr_edge = rate_tuner->edge();
    best.stop.lr_horizon_steps = outcome.lr_horizon_steps;
    best.stop.lr_horizon_wanted = outcome.lr_horizon_wanted;
    pair.best = best;
    pair.rates = std::move(lr);
  }

 private:
  // The configured strategy over the list, or with a reference (and lr_transfer) the local check around it.
  std::unique_ptr<RateEdgeExtension> make(const SearchRun& search, int batch,
                                          const std::optional<RateReference>& reference) const {
    TunerSpace space = lr_space(search.settings, search.request, batch, reference);
    const uint64_t seed = search.request.seed;
    if (!reference || !transfer_) return make_rate_tuner(tuner_, space, seed);
    space.learning_rates = scaling_rule_rates(reference->learning_rate, reference->batch_size, batch);
    space.min_learning_rate = space.learning_rates.front();
    space.max_learning_rate = space.learning_rates.back();
    space.start_learning_rate = sqrt_rule_rate(reference->learning_rate, reference->batch_size, batch);
    space.options.clear();
    return make_rate_tuner("lr_sweep", space, seed);
  }

  const std::string tuner_;
  const bool transfer_;
};

}  // namespace

std::unique_ptr<SearchStage> make_rate_stage(const SearchSettings& settings) {
  return std::make_unique<RateStage>(settings);
}

}  // namespace tune
