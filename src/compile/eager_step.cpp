// The native baseline: zero grads, forward (autocast for bf16/fp16), backward, optimizer update, all eager.
// Also the reference that the jit and cuda-graph backends are tested against.
#include "compile/eager_step.h"

namespace tune {

EagerStep::EagerStep(TrainableModel model, const StepOptions& options)
    : model_(std::move(model)), update_(model_.module->parameters(), options),
      autocast_(autocast_dtype(options.precision)) {}

CompileReport EagerStep::prepare(const Batch&) { return {0.0, "eager: nothing to compile"}; }

torch::Tensor EagerStep::step(const Batch& batch) {
  return update_.run([&] {
    // Autocast covers the forward only; backward runs in the dtypes the forward recorded (as torch.autocast).
    AutocastGuard autocast(parameter_device_type(*model_.module), autocast_);
    return model_.loss(batch);
  });
}

}  // namespace tune
