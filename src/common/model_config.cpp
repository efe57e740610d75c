// Reads model YAMLs (tested_models/*.yaml or a user's file) into ModelConfig, with errors that name
// the file, the key and the expected type; and converts configs to and from JSON for trial specs.
#include "common/model_config.h"
#include "common/model_config_reader.h"
#include "util/join.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>
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
    for (const auto& kv : node) {
      const std::string key = yaml_key_name(kv.first, "YAML");
      out[key] = yaml_to_json(kv.second);
    }
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
  require_utf8(node.Scalar(), "line " + std::to_string(node.Mark().line + 1) + ": value");
  return node.Scalar();
}

// HF config keys that change the model's math, each with the one value the families here implement (as JSON).
// Another value is an error: ignoring it would train another model than the checkpoint's.
struct ImplementedValue {
  const char* families;  // space-separated
  const char* key;
  const char* value;
};
constexpr ImplementedValue kImplementedValues[] = {
    {"bert roberta", "position_embedding_type", "\"absolute\""},
    {"bert roberta", "is_decoder", "false"},
    {"bert roberta gpt2", "add_cross_attention", "false"},
    {"bert roberta distilbert gpt2 t5", "tie_word_embeddings", "true"},  // every head here is tied
    {"bert roberta distilbert gpt2 t5", "tie_encoder_decoder", "false"},
    {"bert roberta distilbert gpt2 t5", "pruned_heads", "{}"},
    {"distilbert", "sinusoidal_pos_embds", "false"},
    {"gpt2", "reorder_and_upcast_attn", "false"},
};

// A key as the user wrote it: under config: in a model YAML, at the top of a checkpoint's config.json.
std::string shown_key(const ModelConfig& c, const std::string& key) {
  const std::string& f = c.source_path;
  const bool json = f.size() >= 5 && f.compare(f.size() - 5, 5, ".json") == 0;
  return json ? key : "config." + key;
}

bool in_families(const char* families, const std::string& family) {
  return (" " + std::string(families) + " ").find(" " + family + " ") != std::string::npos;
}

void check_implemented_values(const ModelConfig& c, const std::string& file, const std::string& prefix) {
  for (const auto& v : kImplementedValues) {
    const auto it = c.hf.find(v.key);
    if (!in_families(v.families, c.family) || it == c.hf.end() || it->is_null()) continue;
    if (*it != nlohmann::json::parse(v.value))
      throw std::invalid_argument(file + ": key '" + prefix + v.key + "' is " + it->dump() + ": tune implements only " +
                                  v.value + " for family " + c.family +
                                  " (the key changes the model's math, so it is not ignored)");
  }
  if (c.hf.contains("quantization_config"))
    throw std::invalid_argument(file + ": key '" + prefix + "quantization_config': quantized checkpoints are not "
                                "supported (tune trains the full-precision model)");
}

// Keys every HF config may carry that do not change a training step's math (PretrainedConfig's own
// attributes: generation, labels, bookkeeping), and each family's keys that only other heads read.
constexpr const char* kHarmlessKeys[] = {
    "architectures", "model_type", "transformers_version", "_name_or_path", "_commit_hash", "torch_dtype", "dtype",
    "use_bfloat16", "id2label", "label2id", "finetuning_task", "problem_type", "tokenizer_class", "prefix",
    "bos_token_id", "eos_token_id", "sep_token_id", "task_specific_params", "return_dict", "output_hidden_states",
    "output_attentions", "torchscript", "chunk_size_feed_forward", "is_encoder_decoder", "use_cache",
    "gradient_checkpointing", "output_past", "max_length", "min_length", "do_sample", "early_stopping", "num_beams",
    "num_beam_groups", "diversity_penalty", "temperature", "top_k", "top_p", "typical_p", "repetition_penalty",
    "length_penalty", "no_repeat_ngram_size", "encoder_no_repeat_ngram_size", "bad_words_ids",
    "num_return_sequences", "output_scores", "return_dict_in_generate", "forced_bos_token_id",
    "forced_eos_token_id", "remove_invalid_values", "exponential_decay_length_penalty", "suppress_tokens",
    "begin_suppress_tokens", "cross_attention_hidden_size", "tf_legacy_loss", "quantization_config",
    "attn_implementation", "_attn_implementation_autoset", "n_ctx", "n_positions", "qa_dropout", "summary_type",
    "summary_use_proj", "summary_activation", "summary_proj_to_labels", "summary_first_dropout", "tie_weights_",
    "is_gated_act", "dense_act_fn", "classifier_dropout"};
// Keys read by the families' code (through ModelConfig::hf_*) beyond the common dimensions.
constexpr const char* kFamilyReadKeys[] = {
    "vocab_size", "type_vocab_size", "initializer_range", "pad_token_id", "num_labels", "n_inner", "d_kv",
    "num_decoder_layers", "relative_attention_num_buckets", "relative_attention_max_distance", "initializer_factor",
    "decoder_start_token_id", "seq_classif_dropout", "scale_attn_weights", "scale_attn_by_inverse_layer_idx",
    "embd_pdrop"};

}  // namespace

void read_hf_config(const YAML::Node& hf, ModelConfig& c, const std::string& file, const std::string& p) {
  const FamilyKeys& k = family_keys(c.family, file);
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
  check_implemented_values(c, file, p);
}

namespace {

void read_tokens(const YAML::Node& tokens, ModelConfig& c, const std::string& file) {
  if (!tokens) return;
  const std::string p = "tokens.";
  check_known_keys(tokens, {"cls", "sep", "mask", "first_word", "last_word", "sentinel_first"}, file, p);
  read_yaml_key(tokens, "cls", c.cls_token_id, file, p);
  read_yaml_key(tokens, "sep", c.sep_token_id, file, p);
  read_yaml_key(tokens, "mask", c.mask_token_id, file, p);
  read_yaml_key(tokens, "first_word", c.first_word_token_id, file, p);
  read_yaml_key(tokens, "last_word", c.last_word_token_id, file, p);
  read_yaml_key(tokens, "sentinel_first", c.sentinel_first_token_id, file, p);
}

}  // namespace

void validate_model_config(const ModelConfig& c, const std::string& file) {
  auto positive = [&](int v, const char* key) {
    if (v <= 0)
      throw std::invalid_argument(file + ": key '" + shown_key(c, key) + "': expected a positive integer, got " +
                                  std::to_string(v));
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

namespace {

template <typename T>
T hf_value(const ModelConfig& c, const std::string& key, T fallback, const char* expected) {
  const auto it = c.hf.find(key);
  if (it == c.hf.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(c.source_path + ": key '" + shown_key(c, key) + "': expected " + expected + ", got " +
                                it->dump());
  }
}

}  // namespace

int64_t ModelConfig::hf_int(const std::string& key, int64_t fallback) const {
  const auto it = hf.find(key);
  if (it != hf.end() && (it->is_number_float() || it->is_boolean()))
    throw std::invalid_argument(source_path + ": key '" + shown_key(*this, key) + "': expected an integer, got " +
                                it->dump());
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

std::vector<std::string> unread_hf_keys(const ModelConfig& c) {
  std::set<std::string> known(std::begin(kHarmlessKeys), std::end(kHarmlessKeys));
  known.insert(std::begin(kFamilyReadKeys), std::end(kFamilyReadKeys));
  for (const auto& v : kImplementedValues) known.insert(v.key);
  for (const auto& k : kFamilyKeys)
    if (c.family == k.family)
      for (const char* key : {k.hidden, k.layers, k.heads, k.intermediate, k.positions, k.eps, k.act, k.dropout,
                              k.attn_dropout})
        if (key) known.insert(key);
  std::vector<std::string> unread;
  for (const auto& item : c.hf.items())
    if (!known.count(item.key())) unread.push_back(item.key());
  return unread;
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
  // config: is HF's config (its unread keys are named in a note, model_config_reader.h); the rest is tune's own.
  check_known_keys(root, {"name", "family", "hf_class", "task", "tiny", "seq_len", "expected_parameters", "config",
                          "tokens", "hf_repo"}, yaml_path);
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
  read_hf_config(root["config"], c, yaml_path, "config.");
  read_tokens(root["tokens"], c, yaml_path);
  validate_model_config(c, yaml_path);
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
