// Emits a model YAML with yaml-cpp: the header keys, the HF config values (sorted, as JSON types map to YAML
// scalars) and the token layout, so a derived config round-trips through load_model_config.
#include "hub/model_yaml.h"

#include <yaml-cpp/yaml.h>

namespace tune {
namespace {

void emit_json(YAML::Emitter& out, const nlohmann::json& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, item] : value.items()) {
      out << YAML::Key << key << YAML::Value;
      emit_json(out, item);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto& item : value) emit_json(out, item);
    out << YAML::EndSeq;
  } else if (value.is_null()) {
    out << YAML::Null;
  } else if (value.is_boolean()) {
    out << value.get<bool>();
  } else if (value.is_number()) {
    out << value.dump();  // JSON's shortest text that reads back as the same number (1e-12, not 9.99...e-13)
  } else {
    out << YAML::DoubleQuoted << value.get<std::string>();
  }
}

void emit_tokens(YAML::Emitter& out, const ModelConfig& c) {
  out << YAML::Key << "tokens" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "cls" << YAML::Value << c.cls_token_id << YAML::Key << "sep" << YAML::Value << c.sep_token_id;
  out << YAML::Key << "mask" << YAML::Value << c.mask_token_id;
  out << YAML::Key << "first_word" << YAML::Value << c.first_word_token_id;
  out << YAML::Key << "last_word" << YAML::Value << c.last_word_token_id;
  if (c.sentinel_first_token_id >= 0)
    out << YAML::Key << "sentinel_first" << YAML::Value << c.sentinel_first_token_id;
  out << YAML::EndMap;
}

}  // namespace

std::string model_yaml(const ModelConfig& c, const std::string& origin) {
  YAML::Emitter out;
  out << YAML::Comment("derived by `tune models --describe` from " + origin) << YAML::Newline;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << c.name << YAML::Key << "family" << YAML::Value << c.family;
  out << YAML::Key << "hf_class" << YAML::Value << c.hf_class << YAML::Key << "task" << YAML::Value << c.task;
  out << YAML::Key << "seq_len" << YAML::Value << c.default_seq_len;
  out << YAML::Key << "config" << YAML::Value;
  emit_json(out, c.hf);
  emit_tokens(out, c);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace tune
