// AdamW whose whole state (moments and the step count) lives on the parameters' device, updated by
// ATen's fused kernel: no host sync per step, so a CUDA graph can capture it (the "fused" optimizer).
#pragma once
#include <torch/torch.h>

#include <vector>

namespace tune {

// Same hyper-parameters and update as torch::optim::AdamW (AdamWOptions), one fused launch per group.
class FusedAdamW : public torch::optim::Optimizer {
 public:
  // rate_in_tensor: the kernel reads the rate from a device tensor that set_learning_rate fills, so a schedule
  // also reaches a captured CUDA graph; else the options' rate, as a constant.
  FusedAdamW(std::vector<torch::Tensor> parameters, const torch::optim::AdamWOptions& options,
             bool rate_in_tensor = false);
  torch::Tensor step(LossClosure closure = nullptr) override;
  // The update, except that it leaves parameters, moments and step counts untouched where
  // found_inf (a one-element float tensor on the parameters' device) is 1 — decided on the device.
  void step_unless_found_inf(const torch::Tensor& found_inf);
  // The step count of `parameter` (a float tensor on its device).
  torch::Tensor step_count(const torch::Tensor& parameter) const;
  // Every state tensor (moments, step counts), e.g. to snapshot and restore around a warm-up.
  std::vector<torch::Tensor> state_tensors() const;
  // The rate of the next updates. Throws std::logic_error without rate_in_tensor (a graph would keep the old).
  void set_learning_rate(double learning_rate);

 private:
  void update_group(torch::optim::OptimizerParamGroup& group, const torch::Tensor& found_inf);
  torch::Tensor rate_;  // defined with rate_in_tensor: a float32 scalar on the parameters' device
};

}  // namespace tune
