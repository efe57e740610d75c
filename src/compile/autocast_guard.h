// Mixed precision for the forward pass: which autocast dtype a precision name means, and an RAII guard
// that turns autocast on for one device type (as Python's `with torch.autocast(...)`).
#pragma once
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <optional>
#include <string>

namespace tune {

// "fp32" -> none (no autocast), "bf16" -> bfloat16, "fp16" -> float16; else std::invalid_argument.
std::optional<at::ScalarType> autocast_dtype(const std::string& precision);

// The device type the module's parameters live on (autocast is enabled per device type).
c10::DeviceType parameter_device_type(const torch::nn::Module& module);

// Enables autocast to `dtype` on `device_type` for its lifetime, restoring the previous state after;
// does nothing when dtype is empty. The cast cache must be off while a CUDA graph is being captured.
class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device_type, std::optional<at::ScalarType> dtype, bool cache_enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_type_;
  bool active_;
  bool previous_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kFloat;
  bool previous_cache_enabled_ = true;
};

}  // namespace tune
