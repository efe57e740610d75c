// Reads model YAMLs (tested_models/*.yaml or a user's file) into ModelConfig, with errors that name
// the file, the key and the expected type; and converts configs to and from JSON for trial specs.
#include "models/model_config.h"
#include "util/join.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "util/hash.h"
#include "util/paths.h"
#include "util/yaml_fields.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

// Each family's HF key for the common dimensions; nullptr: the family has no such key.
struct FamilyKeys {
  const char* family;
  const char *hidden, *layers, *heads, *intermediate, *positions, *eps, *act, *dropout, *attn_dropout;
};
constexpr FamilyKeys kFamilyKeys[] = {
    {"bert", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "max_position_embeddings",
     "layer_norm_eps", "hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob"},
    {"roberta", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
     "max_position_embeddings", "layer_norm_eps", "hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob"},
    {"distilbert", "dim", "n_layers", "n_heads", "hidden_dim", "max_position_embeddings", nullptr, "activation",
     "dropout", "attention_dropout"},
    {"gpt2", "n_embd", "n_layer", "n_head", nullptr, "n_positions", "layer_norm_epsilon", "activation_function",
     "resid_pdrop", "attn_pdrop"},
    {"t5", "d_model", "num_layers", "num_heads", "d_ff", nullptr, "layer_norm_epsilon", "feed_forward_proj",
     "dropout_rate", "dropout_rate"},
};

const FamilyKeys& family_keys(const std::string& family, const std::string& file) {
  for (const auto& k : kFamilyKeys)
    if (family == k.family) return k;
  std::vector<std::string> known;
  for (const auto& k : kFamilyKeys) known.push_back(k.family);
  throw std::invalid_argument(file + ": key 'family': expected one of " + join(known) + ", got '" + family + "'");
}

// YAML scalars become the narrowest JSON type that holds them: integer, number, boolean, string.
nlohmann::json yaml_to_json(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& kv : node) out[kv.first.as<std::string>()] = yaml_to_json(kv.second);
    return out;
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) out.push_back(yaml_to_json(item));
    return out;
  }
  if (!node.IsScalar()) return nullptr;
  int64_t i;
  double d;
  bool b;
  if (YAML::convert<int64_t>::decode(node, i)) return i;
  if (YAML::convert<double>::decode(node, d)) return d;
  if (YAML::convert<bool>::decode(node, b)) return b;
  return node.Scalar();
}

void read_hf_config(const YAML::Node& hf, ModelConfig& c, const std::string& file) {
  const FamilyKeys& k = family_keys(c.family, file);
  const std::string p = "config.";
  auto opt = [&](const char* key, auto& out, bool required) {
    if (key) read_yaml_key(hf, key, out, file, p, required);
  };
  read_yaml_key(hf, "vocab_size", c.vocab_size, file, p, true);
  opt(k.hidden, c.hidden_size, true);
  opt(k.layers, c.num_hidden_layers, true);
  opt(k.heads, c.num_attention_heads, true);
  c.intermediate_size = 4 * c.hidden_size;  // GPT-2's n_inner default
  opt(k.intermediate, c.intermediate_size, k.intermediate != nullptr && c.family != "gpt2");
  if (c.family == "gpt2" && hf["n_inner"] && !hf["n_inner"].IsNull()) read_yaml_key(hf, "n_inner", c.intermediate_size, file, p);
  opt(k.positions, c.max_position_embeddings, false);
  opt(k.eps, c.layer_norm_eps, false);
  opt(k.act, c.hidden_act, false);
  opt(k.dropout, c.hidden_dropout_prob, false);
  opt(k.attn_dropout, c.attention_probs_dropout_prob, false);
  read_yaml_key(hf, "type_vocab_size", c.type_vocab_size, file, p);
  read_yaml_key(hf, "initializer_range", c.initializer_range, file, p);
  read_yaml_key(hf, "pad_token_id", c.pad_token_id, file, p);
  read_yaml_key(hf, "num_labels", c.num_labels, file, p);
  c.hf = yaml_to_json(hf);
}

void read_tokens(const YAML::Node& tokens, ModelConfig& c, const std::string& file) {
  if (!tokens) return;
  const std::string p = "tokens.";
  read_yaml_key(tokens, "cls", c.cls_token_id, file, p);
  read_yaml_key(tokens, "sep", c.sep_token_id, file, p);
  read_yaml_key(tokens, "mask", c.mask_token_id, file, p);
  read_yaml_key(tokens, "first_word", c.first_word_token_id, file, p);
  read_yaml_key(tokens, "last_word", c.last_word_token_id, file, p);
  read_yaml_key(tokens, "sentinel_first", c.sentinel_first_token_id, file, p);
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
  if (c.family != "t5" && c.hidden_size % c.num_attention_heads != 0)  // T5 sizes heads by d_kv
    throw std::invalid_argument(file + ": hidden_size " + std::to_string(c.hidden_size) +
                                " is not a multiple of num_attention_heads " + std::to_string(c.num_attention_heads));
  if (c.first_word_token_id >= c.word_id_end())
    throw std::invalid_argument(file + ": key 'tokens.first_word' must be below tokens.last_word and vocab_size");
}

}  // namespace

namespace {

template <typename T>
T hf_value(const ModelConfig& c, const std::string& key, T fallback, const char* expected) {
  const auto it = c.hf.find(key);
  if (it == c.hf.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(c.source_path + ": key 'config." + key + "': expected " + expected + ", got " + it->dump());
  }
}

}  // namespace

int64_t ModelConfig::hf_int(const std::string& key, int64_t fallback) const {
  const auto it = hf.find(key);
  if (it != hf.end() && it->is_number_float())
    throw std::invalid_argument(source_path + ": key 'config." + key + "': expected an integer, got " + it->dump());
  return hf_value<int64_t>(*this, key, fallback, "an integer");
}
double ModelConfig::hf_double(const std::string& key, double fallback) const {
  return hf_value<double>(*this, key, fallback, "a number");
}
bool ModelConfig::hf_bool(const std::string& key, bool fallback) const {
  return hf_value<bool>(*this, key, fallback, "true or false");
}
std::string ModelConfig::hf_string(const std::string& key, const std::string& fallback) const {
  return hf_value<std::string>(*this, key, fallback, "a string");
}

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
  const YAML::Node root = load_yaml_file(yaml_path);
  if (!root.IsMap()) throw std::invalid_argument(yaml_path + ": expected a mapping with keys name, family, config");
  ModelConfig c;
  c.source_path = yaml_path;
  read_yaml_key(root, "name", c.name, yaml_path, "", true);
  read_yaml_key(root, "family", c.family, yaml_path, "", true);
  read_yaml_key(root, "hf_class", c.hf_class, yaml_path, "");
  read_yaml_key(root, "task", c.task, yaml_path, "");
  read_yaml_key(root, "tiny", c.tiny, yaml_path, "");
  read_yaml_key(root, "seq_len", c.default_seq_len, yaml_path, "");
  read_yaml_key(root, "expected_parameters", c.expected_parameters, yaml_path, "");
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
  std::vector<std::string> known;
  for (const auto& m : list_tested_models()) known.push_back(m.name);
  throw std::invalid_argument("unknown model '" + name_or_path + "': expected one of " + join(known) +
                              ", or a path to a model YAML");
}

}  // namespace tune
