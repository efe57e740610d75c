// The update half of every backend's training step, shared so eager, jit and cuda-graph differ only in how
// they compute the loss: zero grads, backward (loss-scaled under fp16), optimizer step (skipped on overflow).
#pragma once
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compile/grad_scaler.h"
#include "compile/train_step.h"

namespace tune {

// "adamw": torch::optim::AdamW; "fused": FusedAdamW (device-side state). Both with HF Trainer's defaults
// (weight decay 0.01, betas 0.9/0.999, eps 1e-8). Throws std::invalid_argument quoting another name.
// Throws that std::invalid_argument unless `name` is adamw or fused.
void check_optimizer_name(const std::string& name);
std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const StepOptions& options);

class OptimizerStep {
 public:
  // Validates options.precision and options.optimizer (std::invalid_argument). set_to_none=false keeps the
  // gradient tensors alive between steps (a captured CUDA graph writes into them).
  OptimizerStep(std::vector<torch::Tensor> parameters, const StepOptions& options, bool set_to_none = true);
  // One step: zero grads, loss = compute_loss(), backward, update. Returns the detached (unscaled) loss.
  torch::Tensor run(const std::function<torch::Tensor()>& compute_loss);
  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  // Every group's rate from the next update on (FusedAdamW: in its device tensor, which a captured graph reads).
  void set_learning_rate(double learning_rate);
  // Runs after each backward, before the update (data-parallel training's gradient all-reduce).
  void set_gradient_sync(std::function<void()> sync) { sync_ = std::move(sync); }
  const GradScaler* scaler() const { return scaler_.get(); }
  // What a step mutates besides gradients: parameters, scaler state and, for FusedAdamW (whose state exists
  // before the first step), the optimizer state. Stock AdamW's lazily created state is not included.
  std::vector<torch::Tensor> state_tensors() const;

 private:
  void update_scaled();

  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<GradScaler> scaler_;  // fp16 only
  bool set_to_none_;
  std::function<void()> sync_;
};

}  // namespace tune
