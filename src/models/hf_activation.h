// Hugging Face's activation functions by their config name (ACT2FN): "gelu" is the exact erf form,
// "gelu_new" / "gelu_pytorch_tanh" the tanh approximation GPT-2 and T5 v1.1 use.
#pragma once
#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace tune {

// Throws std::invalid_argument naming `source` (the model file) for a name this build does not know.
inline void check_hf_activation(const std::string& name, const std::string& source) {
  for (const char* known : {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swish", "tanh"})
    if (name == known) return;
  throw std::invalid_argument(source + ": activation '" + name +
                              "': expected one of gelu, gelu_new, gelu_pytorch_tanh, relu, silu, swish, tanh");
}

inline torch::Tensor hf_activation(const std::string& name, const torch::Tensor& x) {
  if (name == "gelu") return torch::gelu(x);
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return torch::gelu(x, "tanh");
  if (name == "relu") return torch::relu(x);
  if (name == "silu" || name == "swish") return torch::silu(x);
  if (name == "tanh") return torch::tanh(x);
  TORCH_CHECK(false, "unchecked activation ", name);
}

}  // namespace tune
