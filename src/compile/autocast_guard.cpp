// Autocast on and off the way torch.autocast's __enter__/__exit__ do it: save, set, bump the nesting;
// on the outermost exit drop the cached casts (they hold this step's weight copies), then restore.
#include "compile/autocast_guard.h"

#include <stdexcept>

namespace tune {

std::optional<at::ScalarType> autocast_dtype(const std::string& precision) {
  if (precision == "fp32") return std::nullopt;
  if (precision == "bf16") return at::kBFloat16;
  if (precision == "fp16") return at::kHalf;
  throw std::invalid_argument("precision '" + precision + "': expected fp32, bf16 or fp16");
}

c10::DeviceType parameter_device_type(const torch::nn::Module& module) {
  const auto params = module.parameters();
  TORCH_CHECK(!params.empty(), "parameter_device_type: the module has no parameters");
  return params.front().device().type();
}

AutocastGuard::AutocastGuard(c10::DeviceType device_type, std::optional<at::ScalarType> dtype, bool cache_enabled)
    : device_type_(device_type), active_(dtype.has_value()) {
  if (!active_) return;
  previous_enabled_ = at::autocast::is_autocast_enabled(device_type_);
  previous_dtype_ = at::autocast::get_autocast_dtype(device_type_);
  previous_cache_enabled_ = at::autocast::is_autocast_cache_enabled();
  at::autocast::set_autocast_enabled(device_type_, true);
  at::autocast::set_autocast_dtype(device_type_, *dtype);
  at::autocast::set_autocast_cache_enabled(cache_enabled);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_type_, previous_enabled_);
  at::autocast::set_autocast_dtype(device_type_, previous_dtype_);
  at::autocast::set_autocast_cache_enabled(previous_cache_enabled_);
}

}  // namespace tune
