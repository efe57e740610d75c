// The learning-rate stage of objective time-to-loss (per pair): the ladder (tuners/composite/time_to_loss_ladder.h)
// over the batches the batch stage found to fit, searching the batch and rate that reach the target loss in the
// least wall time, over the rest of the pair's share. Leaves the best config: the speed figures of the chosen
// batch's throughput trial with the ladder's rate; no trial reaching the target ends the pair's search. Reads
// target_loss, target_samples, target_batch, target_learning_rate, time_cap, max_batch_size, lr_tuner and
// ramp_learning_rate.
#include <map>

#include "engine/search_spaces.h"
#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "util/check.h"

namespace tune {
namespace {

// The throughput trials that fit, by batch (the latest of each).
std::map<int, TrialResult> fitting_batches(const DriveOutcome& ramp) {
  std::map<int, TrialResult> fitting;
  for (const auto& t : ramp.trials)
    if (t.result.ok()) fitting[t.candidate.batch_size] = t.result;
  return fitting;
}

// The smallest batch that ran out of memory or failed (0: none).
int smallest_failed_batch(const DriveOutcome& ramp) {
  int smallest = 0;
  for (const auto& t : ramp.trials)
    if (!t.result.ok() && (smallest == 0 || t.candidate.batch_size < smallest)) smallest = t.candidate.batch_size;
  return smallest;
}

class TimeToLossStage : public SearchStage {
 public:
  explicit TimeToLossStage(const SearchSettings& s)
      : target_{s.target_loss, s.target_samples, s.target_batch, s.target_learning_rate},
        time_cap_(s.time_cap),
        max_batch_size_(s.max_batch_size),
        tuner_(s.lr_tuner),
        ramp_learning_rate_(s.ramp_learning_rate) {}
  std::string name() const override { return "time-to-loss"; }
  StageScope scope() const override { return StageScope::pair; }

  void run_pair(SearchRun& search, PairSearch& pair) override {
    TUNE_CHECK(pair.ramp && pair.ramp->best, "the time-to-loss stage runs after a batch stage that chose a batch");
    pair.trials.next_stage(TrialPurpose::learning_rate, pair.end());
    const std::map<int, TrialResult> fitting = fitting_batches(*pair.ramp);
    TimeToLossLadder ladder(plan(search, *pair.ramp, fitting));
    const DriveOutcome run = pair.trials.drive(ladder, /*first_trial_free=*/false);
    BackendOutcome& outcome = pair.outcome;
    outcome.time_to_loss = ladder.outcome(run.cause == StopCause::budget);
    outcome.lr_stop = outcome.time_to_loss->stop;
    const auto& chosen = outcome.time_to_loss->best;
    if (!chosen) {
      outcome.failure = "no trial reached the target loss: " + outcome.time_to_loss->stop;
      return;
    }
    const int batch = chosen->candidate.batch_size;
    const ToldTrial speed{Candidate{batch, ramp_learning_rate_, 0},
                          fitting.count(batch) ? fitting.at(batch) : chosen->result};
    BestConfig best = speed_config(search, pair, speed);
    best.learning_rate = chosen->candidate.learning_rate;
    best.lr_score_loss = chosen->result.score_loss;
    best.stop.lr_cause = run.cause;
    best.stop.lr_stop = outcome.lr_stop;
    std::vector<double> rates_at_batch;
    for (const auto& t : outcome.time_to_loss->trials)
      if (t.candidate.batch_size == batch) rates_at_batch.push_back(t.candidate.learning_rate);
    best.stop.lr_edge = rate_edge_of(rates_at_batch, best.learning_rate);
    pair.best = best;
  }

 private:
  TimeToLossPlan plan(const SearchRun& search, const DriveOutcome& ramp,
                      const std::map<int, TrialResult>& fitting) const {
    const int smallest_failed = smallest_failed_batch(ramp);
    TimeToLossPlan plan;
    plan.target = target_;
    for (const auto& [batch, result] : fitting) plan.step_seconds[batch] = result.step_time_median;
    plan.throughput_batch = ramp.best->first.batch_size;
    plan.max_batch_size = smallest_failed > 0 ? std::min(max_batch_size_, smallest_failed - 1) : max_batch_size_;
    plan.lr_tuner = tuner_;
    plan.lr_space = lr_space(search.settings, search.request, plan.throughput_batch);
    plan.seed = search.request.seed;
    plan.time_cap = time_cap_;
    return plan;
  }

  const TimeToLossTarget target_;
  const bool time_cap_;
  const int max_batch_size_;
  const std::string tuner_;
  const double ramp_learning_rate_;
};

}  // namespace

std::unique_ptr<SearchStage> make_time_to_loss_stage(const SearchSettings& settings) {
  return std::make_unique<TimeToLossStage>(settings);
}

}  // namespace tune
