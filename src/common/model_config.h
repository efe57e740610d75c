// A model's description: family, task and Hugging Face config values, read from tested_models/*.yaml.
// Torch-free, so that the CLI, store and engine can use it without libtorch headers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tune {

// Families implemented in src/models; each reads its HF config keys (see model_config.cpp).
// "roberta" also serves XLM-RoBERTa (same architecture, another vocabulary).
constexpr const char* kModelFamilies[] = {"bert", "roberta", "distilbert", "gpt2", "t5"};

struct ModelConfig {
  std::string name;                 // e.g. bert-base-cased
  std::string family = "bert";      // one of kModelFamilies
  std::string hf_class = "BertForMaskedLM";
  std::string task = "masked_lm";
  bool tiny = false;                // a small variant for tests and smoke runs
  int default_seq_len = 128;
  int64_t expected_parameters = 0;  // Hugging Face num_parameters() for hf_class (0: unknown)
  std::string source_path;          // YAML it came from (for messages)

  // Hugging Face config.json values, verbatim (the YAML's config: block), for family-specific keys.
  nlohmann::json hf = nlohmann::json::object();

  // The common dimensions, normalised from each family's own key names (GPT-2's n_embd is
  // hidden_size here, T5's d_ff is intermediate_size, ...).
  int vocab_size = 0;
  int hidden_size = 0;
  int num_hidden_layers = 0;
  int num_attention_heads = 0;
  int intermediate_size = 0;
  int max_position_embeddings = 512;
  int type_vocab_size = 2;
  double layer_norm_eps = 1e-12;
  std::string hidden_act = "gelu";
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  double initializer_range = 0.02;
  int pad_token_id = 0;
  int num_labels = 2;               // sequence classification heads

  // Special token ids the data pipeline needs (BERT vocab defaults; bos/eos for GPT-2 and T5 map to cls/sep).
  int cls_token_id = 101;
  int sep_token_id = 102;
  int mask_token_id = 103;
  int first_word_token_id = 999;    // ids below this are special or unused in the vocabulary
  int last_word_token_id = -1;      // ids above this are special (e.g. T5's sentinels); -1: vocab_size - 1
  int sentinel_first_token_id = -1; // T5's <extra_id_0>; later sentinels count down from it

  // A family-specific HF config value; `fallback` when absent. Throws std::invalid_argument naming
  // the source file and key when present with another type.
  int64_t hf_int(const std::string& key, int64_t fallback) const;
  double hf_double(const std::string& key, double fallback) const;
  bool hf_bool(const std::string& key, bool fallback) const;
  std::string hf_string(const std::string& key, const std::string& fallback) const;
  // The longest sequence the learned positions allow: RoBERTa's positions start after padding_idx.
  int max_sequence_length() const {
    return family == "roberta" ? max_position_embeddings - pad_token_id - 1 : max_position_embeddings;
  }
  int word_id_end() const { return last_word_token_id >= 0 ? last_word_token_id + 1 : vocab_size; }

  // Stable hash of the architecture values (not of the name): keys studies in the store.
  std::string config_hash() const;
};

// Loads a model YAML. Throws std::invalid_argument naming the file, the key and the expected type.
ModelConfig load_model_config(const std::string& yaml_path);

// Resolves --model: a tested model name (tested_models/NAME.yaml) or a path to a user's YAML.
// Throws std::invalid_argument listing the known names when NAME is unknown.
ModelConfig resolve_model(const std::string& name_or_path);

// All YAMLs in tested_models/, full-size first, then tiny variants, each sorted by name.
std::vector<ModelConfig> list_tested_models();

// JSON form (trial specs carry the whole config, so a trial reruns without tested_models/).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ModelConfig, name, family, hf_class, task, tiny, default_seq_len,
    expected_parameters, source_path, hf, num_labels, last_word_token_id, sentinel_first_token_id, vocab_size, hidden_size, num_hidden_layers, num_attention_heads,
    intermediate_size, max_position_embeddings, type_vocab_size, layer_norm_eps, hidden_act,
    hidden_dropout_prob, attention_probs_dropout_prob, initializer_range, pad_token_id, cls_token_id,
    sep_token_id, mask_token_id, first_word_token_id)

}  // namespace tune
