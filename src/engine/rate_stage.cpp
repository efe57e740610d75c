// The learning-rate stage of objective two-stage (per pair): the rate strategy at the batch stage's choice, inside
// the edge extension, over the rest of the pair's share. The first backend of a precision searches the list; with
// lr_transfer the later ones check the scaling rules' rates from its result (lr_sweep over the same, square-root
// and linear rates, from the square-root one). With lr_reuse, a later backend at the first one's batch and horizon
// trains one trial at the rate the first one's seed check chose: the same model, data and seed, so only the step's
// numerics differ, and where its loss lies within the seed-to-seed spread that check measured, the rate is reused
// and no search of its own runs (a compiled step trains the same function: its rate search would re-measure the
// same landscape, ~5 trials per backend). Leaves the best config: the batch stage's speed figures with the rate
// found. Where even the best rate has not learned after the horizon (trial/learned_share.h), the rates run again
// at twice the steps, up to lr_max_train_steps while the pair's share of the budget fits them: a ranking taken
// before the model learned is no answer. Reads lr_tuner (and its options, through the space), lr_transfer,
// lr_reuse and lr_max_train_steps.
#include <limits>

#include "engine/search_spaces.h"
#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "stats/statistics.h"
#include "tuners/batch_scaling.h"
#include "trial/learned_share.h"
#include "tuners/composite/rate_edge_extension.h"
#include "util/check.h"
#include "util/table_format.h"

namespace tune {
namespace {

class RateStage : public SearchStage {
 public:
  explicit RateStage(const SearchSettings& s)
      : tuner_(s.lr_tuner), transfer_(s.lr_transfer), reuse_(s.lr_reuse), max_steps_(s.lr_max_train_steps) {}
  std::string name() const override { return "learning-rate"; }
  StageScope scope() const override { return StageScope::pair; }

  void run_pair(SearchRun& search, PairSearch& pair) override {
    TUNE_CHECK(pair.ramp && pair.ramp->best, "the learning-rate stage runs after a batch stage that chose a batch");
    const int batch = pair.ramp->best->first.batch_size;
    std::optional<RateReference>& reference = search.references[pair.outcome.precision];
    pair.trials.next_stage(TrialPurpose::learning_rate, pair.end());
    std::string declined;  // why the reference's choice was not reused, where a trial checked it
    if (reference && reusable(*reference, batch, pair.outcome.lr_horizon_steps)) {
      if (std::optional<DriveOutcome> reused = check_reference(pair, *reference, declined)) {
        const std::string words = reused->stop_reason;
        keep(search, pair, std::move(*reused), reference->checked->edge, "", words);
        return;
      }
    }
    const auto rate_tuner = make(search, batch, reference);
    DriveOutcome lr = pair.trials.drive(*rate_tuner, /*first_trial_free=*/true);
    const std::string words = lengthen_until_learned(search, pair, batch, reference, lr) + lr.stop_reason;
    std::string origin;
    if (reference && transfer_)
      origin = declined + strf("from %s's %.1e at batch %d by the scaling rules: ", reference->backend.c_str(),
                               reference->learning_rate, reference->batch_size);
    else if (lr.best)
      reference = RateReference{pair.outcome.backend, batch, lr.best->first.learning_rate,
                                pair.outcome.lr_horizon_steps, std::nullopt};
    const RateEdge edge = rate_tuner->edge();
    keep(search, pair, std::move(lr), edge, origin, words);
  }

 private:
  // The pair's best config: the batch stage's speed figures with the rate `lr` found; its stop reason says where
  // the rate came from (`origin`), the horizon, then why the rates' search stopped (`words`).
  static void keep(const SearchRun& search, PairSearch& pair, DriveOutcome lr, RateEdge edge,
                   const std::string& origin, const std::string& words) {
    BackendOutcome& outcome = pair.outcome;
    outcome.lr_stop = origin + pair.horizon_words + words;
    BestConfig best = speed_config(search, pair, *pair.ramp->best);
    if (lr.best) {
      best.learning_rate = lr.best->first.learning_rate;
      best.lr_score_loss = lr.best->second.score_loss;
    }
    best.stop.lr_cause = lr.cause;
    best.stop.lr_stop = outcome.lr_stop;
    best.stop.lr_edge = edge;
    best.stop.lr_horizon_steps = outcome.lr_horizon_steps;
    best.stop.lr_horizon_wanted = outcome.lr_horizon_wanted;
    pair.best = best;
    pair.rates = std::move(lr);
  }

  // A later backend may reuse the reference's seed-checked choice where it trains at the same batch and horizon:
  // its trials there see the very model, data and seed the reference's did.
  bool reusable(const RateReference& reference, int batch, int horizon) const {
    return transfer_ && reuse_ && reference.checked && reference.batch_size == batch &&
           reference.horizon_steps == horizon;
  }

  // One trial at the reference's chosen rate from the study's seed. Its DriveOutcome (that one trial, its best)
  // where its loss lies within the reference's seed-to-seed spread of the reference's own loss there; nothing
  // where the budget refuses the trial or the loss does not (`declined` says why: the search then runs, and finds
  // this trial in the store where its first rate is this one).
  static std::optional<DriveOutcome> check_reference(PairSearch& pair, const RateReference& reference,
                                                     std::string& declined) {
    const RateReference::SeedChecked& checked = *reference.checked;
    const Candidate at{pair.ramp->best->first.batch_size, checked.learning_rate, 0};
    const std::string theirs = strf("%s's %.1e (same batch %d, horizon %d steps)", reference.backend.c_str(),
                                    checked.learning_rate, at.batch_size, reference.horizon_steps);
    if (const std::optional<std::string> refusal = pair.trials.refuses(at)) {
      declined = theirs + " not checked: " + *refusal + "; ";
      return std::nullopt;
    }
    const TrialResult result = pair.trials.stored_or_run(at);
    // Measured as the seed check measured its spread (stats/statistics.h), so like is set against like.
    const double gap = range_over_mean({result.score_loss, checked.first_seed_loss})
                           .value_or(std::numeric_limits<double>::infinity());
    if (!result.ok() || !(gap <= checked.spread)) {
      declined = theirs + (result.ok() ? strf(" not reused: this step's loss there %.4f against its %.4f, %.3f%% "
                                              "apart, beyond its seed-to-seed spread %.2f%%; ", result.score_loss,
                                              checked.first_seed_loss, 100 * gap, 100 * checked.spread)
                                       : " not reused: this step's trial there failed; ");
      return std::nullopt;
    }
    DriveOutcome lr;
    lr.trials.push_back(DrivenTrial{at, result, false});
    lr.best = ToldTrial{at, result};
    lr.cause = StopCause::reused;
    lr.stop_reason = theirs + strf(" reused: this step's loss there %.4f against its %.4f from the same seed, %.3f%% "
                                   "apart, within its seed-to-seed spread %.2f%%; no rate search or seed check of "
                                   "its own", result.score_loss, checked.first_seed_loss, 100 * gap,
                                   100 * checked.spread);
    return lr;
  }

  // How far a trial's model learned (trial/learned_share.h); nothing for a trial that did not run.
  static std::optional<double> trial_learned(const ModelConfig& model, const TrialResult& trial) {
    if (!trial.ok() || trial.losses.empty()) return std::nullopt;
    return learned_share(trial.score_loss, untrained_loss(model, trial.losses.front(), trial.label_prior_loss));
  }

  static std::optional<double> best_learned(const ModelConfig& model, const DriveOutcome& lr) {
    return lr.best ? trial_learned(model, lr.best->second) : std::nullopt;
  }

  // Doubles the horizon and drives the rates again while the best has learned under kLearnedShare, the doubled
  // horizon is within lr_max_train_steps and as many trials as the last drive's are predicted to fit. Returns the
  // words for the stop reason ("" when the first horizon ranked the rates).
  std::string lengthen_until_learned(SearchRun& search, PairSearch& pair, int batch,
                                     const std::optional<RateReference>& reference, DriveOutcome& lr) const {
    const int first = pair.outcome.lr_horizon_steps;
    int horizon = first;
    std::optional<double> learned = best_learned(search.request.model, lr);
    const auto unlearned = [&] { return learned && *learned < kLearnedShare; };
    while (unlearned() && 2 * horizon <= max_steps_ &&
           pair.trials.horizon_fits(batch, 2 * horizon, static_cast<int>(lr.trials.size()))) {
      search.progress << pair.trials.label() << strf(" learning-rate: the best rate learned %.1f%% of the untrained "
                         "loss in %d steps; the rates again at %d\n", 100 * *learned, horizon, 2 * horizon);
      horizon *= 2;
      pair.trials.set_horizon(horizon);
      const auto rate_tuner = make(search, batch, reference);
      lr = pair.trials.drive(*rate_tuner, /*first_trial_free=*/false);
      learned = best_learned(search.request.model, lr);
    }
    pair.outcome.lr_horizon_steps = horizon;
    std::string words = horizon > first ? strf("horizon lengthened from %d to %d steps: the best rate had not "
                                               "learned; ", first, horizon) : "";
    if (unlearned())
      words += strf("rates not separated: the best learned %.1f%% of the untrained loss in %d steps (%s); ",
                    100 * *learned, horizon, 2 * horizon > max_steps_ ? "lr_max_train_steps" : "budget");
    return words;
  }

  // The configured strategy over the list, or with a reference (and lr_transfer) the local check around it.
  std::unique_ptr<RateEdgeExtension> make(const SearchRun& search, int batch,
                                          const std::optional<RateReference>& reference) const {
    TunerSpace space = lr_space(search.settings, search.request, batch, reference);
    const uint64_t seed = search.request.seed;
    // The edge extension goes below the smallest rate only where its model learned enough to rank rates.
    RankCheck ranks = [model = search.request.model](const TrialResult& trial) {
      const std::optional<double> learned = trial_learned(model, trial);
      return !learned || *learned >= kLearnedShare;
    };
    if (!reference || !transfer_) return make_rate_tuner(tuner_, space, seed, std::move(ranks));
    space.learning_rates = scaling_rule_rates(reference->learning_rate, reference->batch_size, batch);
    space.min_learning_rate = space.learning_rates.front();
    space.max_learning_rate = space.learning_rates.back();
    space.start_learning_rate = sqrt_rule_rate(reference->learning_rate, reference->batch_size, batch);
    space.options.clear();
    return make_rate_tuner("lr_sweep", space, seed, std::move(ranks));
  }

  const std::string tuner_;
  const bool transfer_, reuse_;
  const int max_steps_;
};

}  // namespace

std::unique_ptr<SearchStage> make_rate_stage(const SearchSettings& settings) {
  return std::make_unique<RateStage>(settings);
}

}  // namespace tune
