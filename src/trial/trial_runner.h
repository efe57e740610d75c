// Runs one trial in this process: build the model, prepare the step with the backend, time the
// first steps apart from the steady state, record throughput, memory and the loss curve.
#pragma once
#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// Never throws for a trial's own failure: out of memory, a compile error, a diverging loss or a
// failing step become a typed result. Internal invariant breaks still abort.
TrialResult run_trial_in_process(const TrialSpec& spec);

}  // namespace tune
