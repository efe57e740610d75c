// The shared module pieces (models/hf_modules.h).
#include "models/hf_modules.h"

namespace tune {

std::shared_ptr<torch::nn::Module> container(torch::nn::Module& parent, const std::string& name) {
  return parent.register_module(name, std::make_shared<torch::nn::Module>());
}

torch::nn::LayerNorm make_layer_norm(const ModelConfig& c) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.hidden_size}).eps(c.layer_norm_eps));
}

}  // namespace tune
