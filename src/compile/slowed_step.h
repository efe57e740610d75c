// TEST ONLY: a training step made slower by a known share, so `tune regress` can be shown to catch a
// regression of one backend (TrialSpec::inject_slowdown, tune regress --inject-slowdown).
#pragma once
#include <memory>

#include "compile/train_step.h"

namespace tune {

// Wraps `inner`: after each step, spends `fraction` of the time that step took (0.15: 15% slower).
// Throws std::invalid_argument quoting a fraction outside [0, 10].
std::unique_ptr<TrainStep> slow_down(std::unique_ptr<TrainStep> inner, double fraction);

}  // namespace tune
