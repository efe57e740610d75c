// Backend registry: a training-step backend by name, built with the step options (precision, optimizer)
// every backend honours through the shared OptimizerStep.
#include <stdexcept>

#include "compile/cuda_graph_step.h"
#include "compile/eager_step.h"
#include "compile/jit_step.h"
#include "compile/train_step.h"

namespace tune {

void TrainStep::set_learning_rate(double) {
  throw std::logic_error("backend " + backend() + " cannot change its learning rate between steps");
}

std::unique_ptr<TrainStep> make_train_step(const std::string& backend, TrainableModel model, const StepOptions& options) {
  if (backend == "eager") return std::make_unique<EagerStep>(std::move(model), options);
  if (backend == "jit") return std::make_unique<JitStep>(std::move(model), options);
  if (backend == "cuda-graph") return std::make_unique<CudaGraphStep>(std::move(model), options);
  throw std::invalid_argument("backend '" + backend + "': expected eager, jit or cuda-graph");
}

}  // namespace tune
