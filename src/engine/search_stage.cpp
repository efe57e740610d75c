// A pair's search state, and the best config its speed figures come from.
#include "engine/search_stage.h"

#include <algorithm>
#include <vector>

#include "engine/stored_pick.h"
#include "models/model_flops.h"
#include "trial/backend_registry.h"

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

std::vector<std::string> searched_precisions(const SearchSummary& summary) {
  std::vector<std::string> precisions;
  for (const auto& o : summary.backends)
    if (std::find(precisions.begin(), precisions.end(), o.precision) == precisions.end())
      precisions.push_back(o.precision);
  return precisions;
}

// Every study of the search's row at `precision` (its model, instance, versions, sequence length and step options;
// any backend) with a best config, this search's or an earlier one's: the table's row reads them all, so the
// confirmation compares the two configs the row shows.
std::vector<BackendOutcome> row_outcomes(const SearchRun& search, const std::string& precision) {
  const std::string row = search.study_key(kNativeBackend, precision).key();
  std::vector<BackendOutcome> outcomes;
  for (auto [id, key] : search.db.studies()) {
    const std::string backend = key.backend;
    key.backend = kNativeBackend;
    if (key.key() != row) continue;
    BackendOutcome o;
    o.backend = backend;
    o.precision = precision;
    o.study_id = id;
    o.best = search.db.best(id);
    if (o.best)  // the batch the row shows (engine/stored_pick.h)
      if (const auto overruling = overruling_stored_trial(search.db.trials(id), *o.best))
        o.best = with_speed_of(*o.best, *overruling);
    if (o.best && o.best->samples_per_second > 0) outcomes.push_back(std::move(o));
  }
  return outcomes;
}

// Native (compiled false), or the compiled backend with the most samples/s at its best, as the table picks them;
// nullptr when there is none.
BackendOutcome* pick_row_side(std::vector<BackendOutcome>& outcomes, bool compiled) {
  BackendOutcome* picked = nullptr;
  for (auto& o : outcomes) {
    const bool wanted = compiled ? is_compiler(o.backend) : o.backend == kNativeBackend;
    if (wanted && (!picked || o.best->samples_per_second > picked->best->samples_per_second)) picked = &o;
  }
  return picked;
}

// The search's own throughput trial of the study at `batch` (its best's, or the other side's): the confirmation
// repeats it as it was specified.
std::optional<ToldTrial> throughput_trial_at(const Database& db, const BackendOutcome& o, int batch) {
  for (const auto& t : db.trials(o.study_id))
    if (t.spec.purpose == TrialPurpose::throughput && t.spec.repeat == 0 && t.result.ok() && !t.superseded &&
        t.spec.batch_size == batch)
      return ToldTrial{Candidate{t.spec.batch_size, t.spec.learning_rate, 0}, t.result};
  return std::nullopt;
}

}  // namespace tune
