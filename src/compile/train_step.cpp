// The training-step interface's shared part: a backend that cannot change its rate between steps says so.
// The backends are built by name in trial/step_factory.cpp, from the registry's in-process entries.
#include "compile/train_step.h"

namespace tune {

void TrainStep::set_learning_rate(double) {
  throw std::logic_error("backend " + backend() + " cannot change its learning rate between steps");
}

void TrainStep::set_gradient_sync(std::function<void()>) {
  throw std::logic_error("backend " + backend() + " has no point between backward and update for a gradient "
                         "all-reduce: it cannot run data-parallel");
}

}  // namespace tune
