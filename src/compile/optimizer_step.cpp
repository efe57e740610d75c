// The shared update: optimizer by name, and the fp16 path through the GradScaler. With the fused optimizer
// the overflow decision stays on the device (no sync, capturable); with stock AdamW it is read on the host.
#include "compile/optimizer_step.h"

#include <stdexcept>

#include "compile/autocast_guard.h"
#include "compile/fused_adamw.h"

namespace tune {

void check_optimizer_name(const std::string& name) {
  if (name != "adamw" && name != "fused")
    throw std::invalid_argument("optimizer '" + name + "': expected adamw or fused");
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const StepOptions& options) {
  const auto adamw = torch::optim::AdamWOptions(options.learning_rate).weight_decay(0.01);
  check_optimizer_name(options.optimizer);
  if (options.optimizer == "fused")
    return std::make_unique<FusedAdamW>(std::move(parameters), adamw, options.scheduled_rate);
  return std::make_unique<torch::optim::AdamW>(std::move(parameters), adamw);
}

OptimizerStep::OptimizerStep(std::vector<torch::Tensor> parameters, const StepOptions& options, bool set_to_none)
    : parameters_(std::move(parameters)), optimizer_(make_optimizer(parameters_, options)), set_to_none_(set_to_none) {
  if (autocast_dtype(options.precision) == at::kHalf) {
    TORCH_CHECK(!parameters_.empty(), "OptimizerStep: no parameters");
    scaler_ = std::make_unique<GradScaler>(parameters_.front().device());
  }
}

torch::Tensor OptimizerStep::run(const std::function<torch::Tensor()>& compute_loss) {
  optimizer_->zero_grad(set_to_none_);
  auto loss = compute_loss();
  if (!scaler_) {
    loss.backward();
    if (sync_) sync_();
    optimizer_->step();
  } else {
    scaler_->scale(loss).backward();
    if (sync_) sync_();
    update_scaled();
  }
  return loss.detach();
}

void OptimizerStep::update_scaled() {
  const auto found_inf = scaler_->unscale(parameters_);
  if (auto* fused = dynamic_cast<FusedAdamW*>(optimizer_.get()))
    fused->step_unless_found_inf(found_inf);
  else if (found_inf.item<float>() == 0)
    optimizer_->step();
  scaler_->update(found_inf);
}

void OptimizerStep::set_learning_rate(double learning_rate) {
  if (auto* fused = dynamic_cast<FusedAdamW*>(optimizer_.get())) return fused->set_learning_rate(learning_rate);
  for (auto& group : optimizer_->param_groups())
    static_cast<torch::optim::AdamWOptions&>(group.options()).lr(learning_rate);
}

std::vector<torch::Tensor> OptimizerStep::state_tensors() const {
  std::vector<torch::Tensor> out = parameters_;
  if (auto* fused = dynamic_cast<const FusedAdamW*>(optimizer_.get())) {
    const auto state = fused->state_tensors();
    out.insert(out.end(), state.begin(), state.end());
  }
  if (scaler_) {
    const auto state = scaler_->state_tensors();
    out.insert(out.end(), state.begin(), state.end());
  }
  return out;
}

}  // namespace tune
