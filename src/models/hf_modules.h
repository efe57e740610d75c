// Module pieces every family builds with, as Hugging Face's modules are laid out: a path-only container and the
// config's LayerNorm. One definition, so each family's module paths and epsilons come out alike.
#pragma once
#include <torch/torch.h>

#include <memory>
#include <string>

#include "common/model_config.h"

namespace tune {

// An empty module that only gives its children a path segment, like HF's wrapper modules.
std::shared_ptr<torch::nn::Module> container(torch::nn::Module& parent, const std::string& name);

// LayerNorm over the hidden size with the config's epsilon.
torch::nn::LayerNorm make_layer_norm(const ModelConfig& c);

}  // namespace tune
