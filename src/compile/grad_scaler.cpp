// The fp16 loss scaler on ATen's AMP kernels (_amp_foreach_non_finite_check_and_unscale_,
// _amp_update_scale_), which exist for CPU and CUDA and keep the decision on the device.
#include "compile/grad_scaler.h"

namespace tune {

GradScaler::GradScaler(const torch::Device& device, double initial_scale, double growth_factor, double backoff_factor,
                       int64_t growth_interval)
    : scale_(torch::full({}, initial_scale, torch::dtype(torch::kFloat32).device(device))),
      growth_tracker_(torch::zeros({}, torch::dtype(torch::kInt32).device(device))),
      growth_factor_(growth_factor), backoff_factor_(backoff_factor), growth_interval_(growth_interval) {}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const { return loss * scale_; }

torch::Tensor GradScaler::unscale(const std::vector<torch::Tensor>& parameters) const {
  torch::NoGradGuard no_grad;
  // As GradScaler: the reciprocal in double, then float, so 1/2^k stays exact.
  const auto inv_scale = scale_.to(torch::kFloat64).reciprocal().to(torch::kFloat32);
  auto found_inf = torch::zeros({}, scale_.options());
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (!grads.empty()) at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale);
  return found_inf;
}

void GradScaler::update(const torch::Tensor& found_inf) {
  at::_amp_update_scale_(scale_, growth_tracker_, found_inf, growth_factor_, backoff_factor_, growth_interval_);
}

}  // namespace tune
