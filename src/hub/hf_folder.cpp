// Reads a Hugging Face model folder (save_pretrained, or a cache snapshot): config.json read as transformers
// reads it (model_type, architectures, the config class's defaults), and the folder's weights and tokenizer.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "data/token_layout.h"
#include "data/tokenizer.h"
#include "hub/hf_model_types.h"
#include "hub/model_source.h"
#include "common/model_config_reader.h"
#include "util/join.h"

namespace tune {
namespace fs = std::filesystem;
namespace {

constexpr const char* kWeightFiles[] = {"model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                                        "pytorch_model.bin.index.json"};
// Keys that record how and when a checkpoint was saved, not its architecture: kept out of the config (and its hash).
constexpr const char* kBookkeepingKeys[] = {"architectures", "model_type", "transformers_version", "_name_or_path",
                                            "_commit_hash", "torch_dtype", "dtype", "id2label", "label2id",
                                            "task_specific_params"};

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::invalid_argument("'" + file.string() + "' cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// nlohmann checks it is JSON (with its message); yaml-cpp then reads the same text, so errors keep line numbers.
std::pair<nlohmann::json, YAML::Node> parse_config(const fs::path& file) {
  const std::string text = read_text(file);
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(file.string() + ": not valid JSON: " + e.what());
  }
  if (!json.is_object()) throw std::invalid_argument(file.string() + ": expected a JSON object of config values");
  try {
    return {json, YAML::Load(text)};
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(file.string() + ": cannot be read as a config: " + e.what());
  }
}

YAML::Node yaml_scalar(const nlohmann::json& value) {
  if (value.is_null()) return YAML::Node(YAML::NodeType::Null);
  if (value.is_boolean()) return YAML::Node(value.get<bool>());
  if (value.is_number_integer()) return YAML::Node(value.get<int64_t>());
  if (value.is_number()) return YAML::Node(value.get<double>());
  return YAML::Node(value.get<std::string>());
}

// transformers fills absent keys from the config class's defaults; num_labels from id2label's size. A key set
// to null ("pad_token_id": null in GPT-2's) means not set: it is dropped first, so tune's default applies.
void fill_defaults(YAML::Node& config, const nlohmann::json& json, const HfModelType& type) {
  std::vector<std::string> nulls;
  for (const auto& entry : config)
    if (entry.second.IsNull()) nulls.push_back(entry.first.as<std::string>());  // a JSON object: keys are strings
  for (const auto& key : nulls) config.remove(key);
  const nlohmann::json defaults = hf_config_defaults(type);
  for (const auto& [key, value] : defaults.items())
    if (!config[key]) config[key] = yaml_scalar(value);
  if (!config["num_labels"] && json.contains("id2label") && json["id2label"].is_object())
    config["num_labels"] = static_cast<int64_t>(json["id2label"].size());
}

std::string string_key(const nlohmann::json& json, const char* key, const fs::path& file, bool required) {
  if (!json.contains(key) && !required) return "";
  if (!json.contains(key) || !json[key].is_string())
    throw std::invalid_argument(file.string() + ": key '" + key + "': expected a string (e.g. \"bert\"), got " +
                                (json.contains(key) ? json[key].dump() : std::string("nothing")));
  return json[key].get<std::string>();
}

std::string first_architecture(const nlohmann::json& json, const fs::path& file) {
  if (!json.contains("architectures") || json["architectures"].is_null()) return "";
  const auto& list = json["architectures"];
  if (!list.is_array() || list.empty() || !list[0].is_string())
    throw std::invalid_argument(file.string() + ": key 'architectures': expected a list of class names, got " +
                                list.dump());
  return list[0].get<std::string>();
}

// The head to train: --task, else the checkpoint's own head, else the family's pre-training task.
std::string chosen_task(const HfModelType& type, const std::string& architecture, const std::string& task,
                        std::vector<std::string>& notes) {
  const std::string own = task_of_architecture(type, architecture);
  const std::string chosen = !task.empty() ? canonical_task(task) : !own.empty() ? own : type.default_task;
  if (!architecture.empty() && own != chosen)
    notes.push_back("architecture " + architecture + (own.empty() ? " has no head tune trains" : " is a " + own + " head") +
                    ": tune trains a " + chosen + " head, initialised as transformers initialises a missing head");
  return chosen;
}

// A snapshot folder .../models--ORG--NAME/snapshots/REV is named ORG/NAME; any other folder by its own name.
std::string folder_model_name(const fs::path& dir) {
  const fs::path clean = dir.filename().empty() ? dir.parent_path() : dir;
  const std::string repo = clean.parent_path().parent_path().filename().string();
  if (clean.parent_path().filename() == "snapshots" && repo.rfind("models--", 0) == 0) {
    std::string name = repo.substr(8);
    for (size_t at; (at = name.find("--")) != std::string::npos;) name.replace(at, 2, "/");
    return name;
  }
  return clean.filename().string();
}

bool has_weights(const fs::path& dir) {
  for (const char* file : kWeightFiles)
    if (fs::is_regular_file(dir / file)) return true;
  return false;
}

}  // namespace

ModelSource load_hf_folder(const std::string& dir, const ModelSourceOptions& options, const std::string& name) {
  const fs::path file = fs::path(dir) / "config.json";
  auto [json, node] = parse_config(file);
  const std::string architecture = first_architecture(json, file);
  const HfModelType& type = hf_model_type(string_key(json, "model_type", file, true), architecture, file.string());
  ModelSource source;
  ModelConfig& c = source.config;
  c.name = name.empty() ? folder_model_name(dir) : name;
  c.source_path = file.string();
  c.family = type.family;
  c.task = chosen_task(type, architecture, options.task, source.notes);
  c.hf_class = hf_class_for_task(type, c.task, file.string());
  fill_defaults(node, json, type);
  read_hf_config(node, c, file.string(), "");
  for (const char* key : kBookkeepingKeys) c.hf.erase(key);
  c.default_seq_len = c.family == "t5" ? 128 : std::min(128, c.max_sequence_length());
  const auto layout = token_layout_from_files(c.family, dir);
  apply_token_layout(layout ? *layout : family_token_layout(c.family, c.vocab_size, c.hf_int("eos_token_id", -1)), c);
  validate_model_config(c, file.string());
  const auto unread = unread_hf_keys(c);
  if (!unread.empty())
    source.notes.push_back(file.string() + ": keys tune does not read (taken not to change the math): " + join(unread));
  if (has_weights(dir)) source.weights = dir;
  else source.notes.push_back("no weights in " + dir + " (expected model.safetensors): random init");
  if (has_tokenizer_files(c.family, dir)) source.tokenizer_dir = dir;
  else source.notes.push_back("no tokenizer files in " + dir + ": the hashing fallback tokenizer");
  source.origin = "Hugging Face folder " + dir + " (" + (architecture.empty() ? type.model_type : architecture) + ")";
  return source;
}

}  // namespace tune
