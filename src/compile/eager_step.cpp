// The native baseline: zero grads, forward, backward, AdamW update, all eager.
// Also the reference that the jit backend's gradients are tested against.
#include "compile/eager_step.h"

namespace tune {

EagerStep::EagerStep(TrainableModel model, double learning_rate)
    : model_(std::move(model)), optimizer_(make_optimizer(*model_.module, learning_rate)) {}

CompileReport EagerStep::prepare(const Batch&) { return {0.0, "eager: nothing to compile"}; }

torch::Tensor EagerStep::step(const Batch& batch) {
  optimizer_->zero_grad();
  auto loss = model_.loss(batch);
  loss.backward();
  optimizer_->step();
  return loss.detach();
}

}  // namespace tune
