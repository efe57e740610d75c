// Backend registry (by name) and the optimizer every backend shares.
// Keeping the optimizer here makes "same step, different backend" literally true.
#include <stdexcept>

#include "compile/eager_step.h"
#include "compile/jit_step.h"
#include "compile/train_step.h"

namespace tune {

std::unique_ptr<TrainStep> make_train_step(const std::string& backend, TrainableModel model, const StepOptions& options) {
  if (backend == "eager") return std::make_unique<EagerStep>(std::move(model), options.learning_rate);
  if (backend == "jit") return std::make_unique<JitStep>(std::move(model), options.learning_rate);
  throw std::invalid_argument("backend '" + backend + "': expected eager or jit");
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(torch::nn::Module& module, double learning_rate) {
  return std::make_unique<torch::optim::AdamW>(module.parameters(),
                                               torch::optim::AdamWOptions(learning_rate).weight_decay(0.01));
}

}  // namespace tune
