// The driver's loop: a stored result is told at once; a new trial must fit the budget (but for a stage's
// first trial when the rules say so); what ended the loop is recorded with the strategy's best.
#include "engine/search_driver.h"

#include "util/stop_signals.h"

namespace tune {
namespace {

// The loop's end when tune was asked to stop (SIGINT, SIGTERM): the search ends as a budget cut does.
void stop_on_request(Tuner& tuner, DriveOutcome& out) {
  out.cause = StopCause::budget;
  out.stop_reason = "stopped by " + stop_signal_name() + " (the trial in flight, if any, discarded)";
  out.best = tuner.best();
}

}  // namespace

double DriveOutcome::run_seconds() const {
  double total = 0;
  for (const auto& t : trials)
    if (!t.reused) total += t.result.wall_seconds;
  return total;
}

DriveOutcome drive(Tuner& tuner, TrialSource& source, const DriveRules& rules) {
  DriveOutcome out;
  while (const auto candidate = tuner.ask()) {
    std::optional<TrialResult> result = source.stored(*candidate);
    const bool reused = result.has_value();
    if (!reused && rules.budget && !(rules.first_trial_free && out.trials.empty()))
      if (auto why = rules.budget->refuses(*candidate)) {
        out.cause = StopCause::budget;
        out.stop_reason = *why;
        out.best = tuner.best();
        return out;
      }
    if (!reused && stop_signal() != 0) {
      stop_on_request(tuner, out);
      return out;
    }
    if (!reused) {
      try {
        result = source.run(*candidate);
      } catch (const StopRequested&) {
        stop_on_request(tuner, out);
        return out;
      }
    }
    tuner.tell(*candidate, *result);
    out.trials.push_back({*candidate, *result, reused});
  }
  out.cause = tuner.stopped_by_trial_cap() ? StopCause::trial_cap : StopCause::strategy;
  out.stop_reason = tuner.stop_reason();
  out.best = tuner.best();
  return out;
}

}  // namespace tune
