// Reads model YAMLs (tested_models/*.yaml or a user's file) into ModelConfig, with errors that name
// the file, the key and the expected type; and converts configs to and from JSON for trial specs.
#include "models/model_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "util/hash.h"
#include "util/paths.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

template <typename T> const char* type_name();
template <> const char* type_name<int>() { return "an integer"; }
template <> const char* type_name<int64_t>() { return "an integer"; }
template <> const char* type_name<double>() { return "a number"; }
template <> const char* type_name<bool>() { return "true or false"; }
template <> const char* type_name<std::string>() { return "a string"; }

// Reads node[key] into out; keeps out's default when the key is absent and not required.
template <typename T>
void read_key(const YAML::Node& node, const std::string& key, T& out, const std::string& file,
              const std::string& prefix, bool required = false) {
  const YAML::Node value = node[key];
  if (!value) {
    if (required) throw std::invalid_argument(file + ": missing key '" + prefix + key + "' (expected " + type_name<T>() + ")");
    return;
  }
  try {
    out = value.as<T>();
  } catch (const YAML::Exception&) {
    const std::string shown = value.IsScalar() ? "'" + value.Scalar() + "'" : "a non-scalar value";
    throw std::invalid_argument(file + ":" + std::to_string(value.Mark().line + 1) + ": key '" + prefix + key +
                                "': expected " + type_name<T>() + ", got " + shown);
  }
}

void read_hf_config(const YAML::Node& hf, ModelConfig& c, const std::string& file) {
  const std::string p = "config.";
  read_key(hf, "vocab_size", c.vocab_size, file, p, true);
  read_key(hf, "hidden_size", c.hidden_size, file, p, true);
  read_key(hf, "num_hidden_layers", c.num_hidden_layers, file, p, true);
  read_key(hf, "num_attention_heads", c.num_attention_heads, file, p, true);
  read_key(hf, "intermediate_size", c.intermediate_size, file, p, true);
  read_key(hf, "max_position_embeddings", c.max_position_embeddings, file, p);
  read_key(hf, "type_vocab_size", c.type_vocab_size, file, p);
  read_key(hf, "layer_norm_eps", c.layer_norm_eps, file, p);
  read_key(hf, "hidden_act", c.hidden_act, file, p);
  read_key(hf, "hidden_dropout_prob", c.hidden_dropout_prob, file, p);
  read_key(hf, "attention_probs_dropout_prob", c.attention_probs_dropout_prob, file, p);
  read_key(hf, "initializer_range", c.initializer_range, file, p);
  read_key(hf, "pad_token_id", c.pad_token_id, file, p);
}

void read_tokens(const YAML::Node& tokens, ModelConfig& c, const std::string& file) {
  if (!tokens) return;
  const std::string p = "tokens.";
  read_key(tokens, "cls", c.cls_token_id, file, p);
  read_key(tokens, "sep", c.sep_token_id, file, p);
  read_key(tokens, "mask", c.mask_token_id, file, p);
  read_key(tokens, "first_word", c.first_word_token_id, file, p);
}

void validate(const ModelConfig& c, const std::string& file) {
  auto positive = [&](int v, const char* key) {
    if (v <= 0) throw std::invalid_argument(file + ": key 'config." + std::string(key) + "': expected a positive integer, got " + std::to_string(v));
  };
  positive(c.vocab_size, "vocab_size");
  positive(c.hidden_size, "hidden_size");
  positive(c.num_hidden_layers, "num_hidden_layers");
  positive(c.num_attention_heads, "num_attention_heads");
  positive(c.intermediate_size, "intermediate_size");
  if (c.hidden_size % c.num_attention_heads != 0)
    throw std::invalid_argument(file + ": hidden_size " + std::to_string(c.hidden_size) +
                                " is not a multiple of num_attention_heads " + std::to_string(c.num_attention_heads));
  if (c.family != "bert")
    throw std::invalid_argument(file + ": key 'family': expected 'bert' (the families implemented), got '" + c.family + "'");
  if (c.hidden_act != "gelu")
    throw std::invalid_argument(file + ": key 'config.hidden_act': expected 'gelu', got '" + c.hidden_act + "'");
  if (c.first_word_token_id >= c.vocab_size)
    throw std::invalid_argument(file + ": key 'tokens.first_word' must be below vocab_size");
}

}  // namespace

std::string ModelConfig::config_hash() const {
  nlohmann::json arch = *this;
  arch.erase("name");
  arch.erase("source_path");
  arch.erase("tiny");
  arch.erase("expected_parameters");
  return stable_hash(arch.dump());
}

ModelConfig load_model_config(const std::string& yaml_path) {
  if (!fs::exists(yaml_path)) throw std::invalid_argument("model file '" + yaml_path + "' does not exist");
  YAML::Node root;
  try {
    root = YAML::LoadFile(yaml_path);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(yaml_path + ": invalid YAML: " + e.what());
  }
  if (!root.IsMap()) throw std::invalid_argument(yaml_path + ": expected a mapping with keys name, family, config");
  ModelConfig c;
  c.source_path = yaml_path;
  read_key(root, "name", c.name, yaml_path, "", true);
  read_key(root, "family", c.family, yaml_path, "", true);
  read_key(root, "hf_class", c.hf_class, yaml_path, "");
  read_key(root, "task", c.task, yaml_path, "");
  read_key(root, "tiny", c.tiny, yaml_path, "");
  read_key(root, "seq_len", c.default_seq_len, yaml_path, "");
  read_key(root, "expected_parameters", c.expected_parameters, yaml_path, "");
  if (!root["config"] || !root["config"].IsMap())
    throw std::invalid_argument(yaml_path + ": missing key 'config' (expected a mapping of Hugging Face config values)");
  read_hf_config(root["config"], c, yaml_path);
  read_tokens(root["tokens"], c, yaml_path);
  validate(c, yaml_path);
  return c;
}

std::vector<ModelConfig> list_tested_models() {
  std::vector<ModelConfig> models;
  for (const auto& entry : fs::directory_iterator(tested_models_dir()))
    if (entry.path().extension() == ".yaml") models.push_back(load_model_config(entry.path().string()));
  std::sort(models.begin(), models.end(), [](const ModelConfig& a, const ModelConfig& b) {
    return std::tie(a.tiny, a.name) < std::tie(b.tiny, b.name);
  });
  return models;
}

ModelConfig resolve_model(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".yaml")
    return load_model_config(name_or_path);
  const fs::path tested = fs::path(tested_models_dir()) / (name_or_path + ".yaml");
  if (fs::exists(tested)) return load_model_config(tested.string());
  std::string known;
  for (const auto& m : list_tested_models()) known += (known.empty() ? "" : ", ") + m.name;
  throw std::invalid_argument("unknown model '" + name_or_path + "': expected one of " + known +
                              ", or a path to a model YAML");
}

}  // namespace tune
