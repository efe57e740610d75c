// Writes a ModelConfig as a model YAML (the tested_models/ format that load_model_config reads back), so a
// config derived from a Hugging Face folder can be pinned: `tune models --describe DIR`.
#pragma once
#include <string>

#include "common/model_config.h"

namespace tune {

// `origin` goes into the opening comment. load_model_config of the text gives the same config_hash().
std::string model_yaml(const ModelConfig& config, const std::string& origin);

}  // namespace tune
