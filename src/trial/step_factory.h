// The in-process backends' factories: the libtorch TrainStep behind each registered backend whose route is
// in_process (trial/backend_registry.h), looked up by the entry's name.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "compile/train_step.h"
#include "models/model_factory.h"

namespace tune {

// The step of the in-process backend `backend` (a registry name: eager, jit, cuda-graph), built with `options`.
// Throws std::invalid_argument quoting a name with no factory, listing those that have one (or an unknown
// precision / optimizer in `options`). The optimizer is make_optimizer's (compile/optimizer_step.h).
std::unique_ptr<TrainStep> make_train_step(const std::string& backend, TrainableModel model,
                                           const StepOptions& options);

// The names the factory table holds, in its order (the test checks them against the registry's in-process entries).
std::vector<std::string> step_factory_names();

}  // namespace tune
