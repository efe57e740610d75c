// Where a training debugger looks at activations: each family's layer loop hands every layer's output to the
// thread's tap, when one is installed (a forward hook, as Python modules have and libtorch's lack). Without a tap
// it costs one branch per layer. Under a trace (the jit backend) the tap sees tracer values once, at trace time:
// the traced graph carries no call to it, as a compiled graph carries no Python hook it could not trace.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <string>

namespace tune {

// Receives "encoder.layer.3" (the layer's module path, as HF names it) and the layer's output.
using ActivationTap = std::function<void(const std::string& layer, const torch::Tensor& output)>;

// Installs `tap` on this thread for its lifetime; the previous one (if any) is back after.
class ActivationTapGuard {
 public:
  explicit ActivationTapGuard(ActivationTap tap);
  ~ActivationTapGuard();
  ActivationTapGuard(const ActivationTapGuard&) = delete;
  ActivationTapGuard& operator=(const ActivationTapGuard&) = delete;

 private:
  ActivationTap previous_;
};

// Hands `output` to the installed tap (nothing without one); `prefix` and `index` name the layer. Returns output.
const torch::Tensor& tap_activation(const char* prefix, size_t index, const torch::Tensor& output);

}  // namespace tune
