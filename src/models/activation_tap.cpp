#include "models/activation_tap.h"

namespace tune {
namespace {

thread_local ActivationTap installed_tap;

}  // namespace

ActivationTapGuard::ActivationTapGuard(ActivationTap tap) : previous_(std::move(installed_tap)) {
  installed_tap = std::move(tap);
}

ActivationTapGuard::~ActivationTapGuard() { installed_tap = std::move(previous_); }

const torch::Tensor& tap_activation(const char* prefix, size_t index, const torch::Tensor& output) {
  if (installed_tap) installed_tap(std::string(prefix) + "." + std::to_string(index), output);
  return output;
}

}  // namespace tune
