// Runs one trial in its own process (`tune trial --spec ... --out ...`), so an out-of-memory kill,
// a crash or a hang ends that trial only. Each trial leaves a folder that reproduces it by hand.
#pragma once
#include <string>

#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// Writes spec.json and command.sh into trial_dir, runs the trial with spec.timeout_seconds,
// and returns its result (also written there as result.json); log.txt holds the child's output. Throws
// StopRequested (util/stop_signals.h) when tune was asked to stop mid-trial: the child is killed, no result.
// Every backend runs as `tune trial`; a Python-worker backend's trial starts its worker itself (trial/python_trial.h).
TrialResult run_trial_isolated(const TrialSpec& spec, const std::string& tune_executable, const std::string& trial_dir);

}  // namespace tune
