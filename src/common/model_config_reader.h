// Reads Hugging Face config values (a model YAML's config: block, or a checkpoint's config.json read as YAML)
// into a ModelConfig, refusing values of keys that change math tune does not implement. Shared by both sources.
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "common/model_config.h"

namespace tune {

// c.family must be set. Reads the common dimensions under each family's key names and keeps every value in c.hf.
// `prefix` is how messages name the block: "config." in a model YAML, "" in config.json. Throws
// std::invalid_argument naming `file` and the key for a value of the wrong type or one tune does not implement.
void read_hf_config(const YAML::Node& hf, ModelConfig& c, const std::string& file, const std::string& prefix);

// Positive dimensions, heads dividing the hidden size, word ids inside the vocabulary; throws naming `file`.
void validate_model_config(const ModelConfig& c, const std::string& file);

// HF config keys that the families' code neither reads nor knows to be harmless (generation, labels and
// bookkeeping keys are harmless). Such a key may change math tune does not implement, so callers name them.
std::vector<std::string> unread_hf_keys(const ModelConfig& c);

}  // namespace tune
