// Dynamic loss scaling for fp16 training, as torch.amp.GradScaler: scale the loss, unscale the gradients
// and detect inf/nan, and grow or back off the scale — all on the device, no host sync.
#pragma once
#include <torch/torch.h>

#include <vector>

namespace tune {

class GradScaler {
 public:
  // GradScaler's defaults: start at 2^16, double after 2000 clean steps, halve on an overflow.
  explicit GradScaler(const torch::Device& device, double initial_scale = 65536.0, double growth_factor = 2.0,
                      double backoff_factor = 0.5, int64_t growth_interval = 2000);
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Divides every defined gradient of `parameters` by the scale in place; returns found_inf, a one-element
  // float tensor on the device that is 1 when any gradient had an inf or nan.
  torch::Tensor unscale(const std::vector<torch::Tensor>& parameters) const;
  // Backs off after an overflow, grows after growth_interval clean steps.
  void update(const torch::Tensor& found_inf);
  double current_scale() const { return scale_.item<double>(); }
  // The scale and growth tracker, e.g. to snapshot and restore around a warm-up.
  std::vector<torch::Tensor> state_tensors() const { return {scale_, growth_tracker_}; }

 private:
  torch::Tensor scale_;           // float32, one element
  torch::Tensor growth_tracker_;  // int32, one element: clean steps since the last change
  double growth_factor_, backoff_factor_;
  int64_t growth_interval_;
};

}  // namespace tune
