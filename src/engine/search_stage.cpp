// A pair's search state, and the best config its speed figures come from.
#include "engine/search_stage.h"

#include <vector>

#include "models/model_flops.h"

namespace tune {
namespace {

// What limited the chosen batch, read from the batch stage as it ran; when no larger size tells, what ended the
// stage does: the strategy itself (throughput stopped improving), its trial cap, or the budget.
StopReasons batch_stop_reasons(const DriveOutcome& ramp, int chosen, int max_batch_size) {
  std::vector<BatchTrial> trials;
  for (const auto& t : ramp.trials) trials.push_back({t.candidate.batch_size, t.result.status});
  const BatchLimit otherwise = ramp.cause == StopCause::strategy    ? BatchLimit::throughput
                               : ramp.cause == StopCause::trial_cap ? BatchLimit::trials
                                                                    : BatchLimit::budget;
  StopReasons r = batch_limit_of(trials, chosen, chosen >= max_batch_size, otherwise);
  r.batch_stop = ramp.stop_reason;
  return r;
}

}  // namespace

PairSearch::PairSearch(SearchRun& search, const SearchPair& pair, double seconds)
    : outcome(search.open_study(pair.backend, pair.precision)),
      trials(search, outcome, search.budget),
      screened(search.screened(pair.backend, pair.precision)),
      start(search.elapsed()),
      seconds(seconds) {}

BestConfig speed_config(const SearchRun& search, const PairSearch& pair, const ToldTrial& speed) {
  const TrialResult& t = speed.second;
  BestConfig best;
  best.batch_size = speed.first.batch_size;
  best.learning_rate = speed.first.learning_rate;
  best.samples_per_second = t.samples_per_second;
  best.step_time = t.step_time_median;
  best.compile_overhead_seconds = t.compile_overhead_seconds;
  best.peak_memory_bytes = t.peak_memory_bytes;
  best.trials_run = static_cast<int>(search.db.trials(pair.outcome.study_id).size());
  best.step_time_ci_low = t.step_time_ci_low;
  best.step_time_ci_high = t.step_time_ci_high;
  best.flops_per_step = t.flops_per_step;
  // Against the measured matmul peak where the store has one for this instance, else the estimate or datasheet.
  best.mfu = model_flops_utilization(t.flops_per_step, t.step_time_median,
                                     search.request.instance.mfu_peak(pair.outcome.precision));
  best.stop = batch_stop_reasons(*pair.ramp, best.batch_size, search.settings.max_batch_size);
  best.search_budget_seconds = search.budget;
  return best;
}

}  // namespace tune
