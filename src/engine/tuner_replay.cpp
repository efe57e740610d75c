// The replay: the driver over a landscape source, the cost summed from the simulated wall times.
// max_trials is the runner's own guard; a tuner that needs it has broken its contract.
#include "engine/tuner_replay.h"

namespace tune {

std::optional<std::string> TrialCountBudget::refuses(const Candidate&) {
  if (left_ > 0) {
    --left_;
    return std::nullopt;
  }
  return std::string("budget: the trial count is spent");
}

ReplayRun run_tuner(Tuner& tuner, const ReplayLandscape& landscape, int max_trials) {
  LandscapeSource source(landscape);
  TrialCountBudget guard(max_trials);
  const DriveOutcome out = drive(tuner, source, {&guard, false});
  ReplayRun run;
  run.trials = out.trials;
  run.best = out.best;
  run.cost_seconds = out.run_seconds();
  run.finished = out.cause != StopCause::budget;  // it still wanted to ask
  run.stop_reason = out.stop_reason;
  return run;
}

}  // namespace tune
