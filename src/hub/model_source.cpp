// Resolves --model to a config plus the weights and tokenizer that go with it: tested names and YAML paths as
// before, Hugging Face folders read from their config.json, and the HF cache consulted for tested models.
#include "hub/model_source.h"

#include <filesystem>
#include <stdexcept>

#include "data/token_layout.h"
#include "data/tokenizer.h"
#include "hub/hf_cache.h"
#include "hub/hf_model_types.h"
#include "util/join.h"
#include "util/paths.h"
#include "util/yaml_fields.h"

namespace tune {
namespace fs = std::filesystem;
namespace {

const HfModelType& model_type_of_class(const ModelConfig& c) {
  for (const std::string& type : supported_model_types()) {
    const HfModelType& t = hf_model_type(type, "", c.source_path);
    if (t.family == c.family && c.hf_class.rfind(t.class_prefix, 0) == 0) return t;
  }
  throw std::invalid_argument(c.source_path + ": hf_class '" + c.hf_class + "' is not a class of family " + c.family);
}

// The architecture values a checkpoint's weights must match to load into the YAML's model.
std::string architecture_mismatch(const ModelConfig& pinned, const ModelConfig& cached) {
  const std::pair<const char*, std::pair<int, int>> fields[] = {
      {"vocab_size", {pinned.vocab_size, cached.vocab_size}},
      {"hidden_size", {pinned.hidden_size, cached.hidden_size}},
      {"num_hidden_layers", {pinned.num_hidden_layers, cached.num_hidden_layers}},
      {"num_attention_heads", {pinned.num_attention_heads, cached.num_attention_heads}},
      {"intermediate_size", {pinned.intermediate_size, cached.intermediate_size}},
      {"max_position_embeddings", {pinned.max_position_embeddings, cached.max_position_embeddings}}};
  if (pinned.family != cached.family) return "family " + cached.family + " instead of " + pinned.family;
  for (const auto& [key, values] : fields)
    if (values.first != values.second)
      return std::string(key) + " " + std::to_string(values.second) + " instead of " + std::to_string(values.first);
  return "";
}

// A model YAML's hf_repo: its Hugging Face Hub id ("" when the YAML names none).
std::string yaml_hf_repo(const std::string& yaml) {
  std::string repo;
  read_yaml_key(load_yaml_file(yaml), "hf_repo", repo, yaml);
  return repo;
}

// A tested model's pinned YAML with the cache's pretrained weights and tokenizer, when the cache holds it under the
// YAML's hf_repo or the model's own (legacy) name.
void use_cached_snapshot(ModelSource& source) {
  const ModelConfig& c = source.config;
  for (const std::string& repo : {yaml_hf_repo(c.source_path), c.name}) {
    const auto snapshot = cached_snapshot(repo);
    if (!snapshot) continue;
    ModelSource cached;
    try {
      cached = load_hf_folder(*snapshot, {c.task, false}, repo);
    } catch (const std::invalid_argument& e) {
      source.notes.push_back("HF cache snapshot " + *snapshot + " not used: " + e.what());
      return;
    }
    const std::string mismatch = architecture_mismatch(c, cached.config);
    if (!mismatch.empty()) {
      source.notes.push_back("HF cache snapshot " + *snapshot + " not used: its config.json has " + mismatch);
      return;
    }
    source.weights = cached.weights;
    source.tokenizer_dir = cached.tokenizer_dir;
    source.origin += "; weights and tokenizer from the HF cache snapshot " + *snapshot;
    if (cached.weights.empty()) source.notes.push_back("the HF cache snapshot " + *snapshot + " holds no weights");
    if (cached.tokenizer_dir.empty()) source.notes.push_back("the HF cache snapshot " + *snapshot + " holds no tokenizer");
    return;
  }
  source.origin += " (not in the HF cache " + hf_hub_cache_dir() + ": random init)";
}

ModelSource tested_model(const fs::path& yaml, const ModelSourceOptions& options) {
  ModelSource source{load_model_config(yaml.string()), "", "", "tested model " + yaml.string(), {}};
  if (!options.task.empty()) apply_task(source.config, options.task);
  if (options.use_hf_cache && !source.config.tiny) use_cached_snapshot(source);  // tiny variants exist only here
  return source;
}

}  // namespace

void apply_task(ModelConfig& config, const std::string& task) {
  const std::string canonical = canonical_task(task);
  config.hf_class = hf_class_for_task(model_type_of_class(config), canonical, config.source_path);
  config.task = canonical;
}

ModelSource resolve_model_source(const std::string& name_or_path, const ModelSourceOptions& options) {
  const fs::path path(name_or_path);
  if (fs::is_directory(path)) {
    if (!fs::is_regular_file(path / "config.json"))
      throw std::invalid_argument("model folder '" + name_or_path + "' has no config.json (expected a Hugging Face "
                                  "model folder, as save_pretrained writes it, or a model YAML)");
    return load_hf_folder(name_or_path, options);
  }
  if (fs::is_regular_file(path) || path.extension() == ".yaml") {
    ModelSource source{load_model_config(name_or_path), "", "", "model YAML " + name_or_path, {}};
    if (!options.task.empty()) apply_task(source.config, options.task);
    return source;
  }
  const fs::path tested = fs::path(tested_models_dir()) / (name_or_path + ".yaml");
  if (fs::exists(tested)) return tested_model(tested, options);
  if (name_or_path.find('/') != std::string::npos) {
    if (const auto snapshot = cached_snapshot(name_or_path)) return load_hf_folder(*snapshot, options, name_or_path);
    throw std::invalid_argument("model '" + name_or_path + "' is no file or folder, and the HF cache " +
                                hf_hub_cache_dir() + " does not hold it");
  }
  std::vector<std::string> known;
  for (const auto& m : list_tested_models()) known.push_back(m.name);
  throw std::invalid_argument("unknown model '" + name_or_path + "': expected one of " + join(known) +
                              ", a model YAML, a Hugging Face model folder, or a Hub id in the HF cache");
}

}  // namespace tune
