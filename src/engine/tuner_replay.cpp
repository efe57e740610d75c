// The replay loop: ask, replay the candidate from the landscape, tell, add up the simulated cost.
// max_trials is the runner's own guard; a tuner that needs it has broken its contract.
#include "engine/tuner_replay.h"

namespace tune {

ReplayRun run_tuner(Tuner& tuner, const ReplayLandscape& landscape, int max_trials) {
  ReplayRun run;
  run.finished = true;
  while (const auto candidate = tuner.ask()) {
    if (static_cast<int>(run.trials.size()) >= max_trials) {
      run.finished = false;  // it still wants to ask
      break;
    }
    const TrialResult result = landscape.replay(*candidate);
    const double seconds = landscape.trial_seconds(*candidate, result);
    tuner.tell(*candidate, result);
    run.trials.push_back({*candidate, result, seconds});
    run.cost_seconds += seconds;
  }
  run.best = tuner.best();
  run.stop_reason = tuner.stop_reason();
  return run;
}

}  // namespace tune
