// A model's description: family, task and Hugging Face config values, read from tested_models/*.yaml.
// Torch-free, so that the CLI, store and engine can use it without libtorch headers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tune {

struct ModelConfig {
  std::string name;                 // e.g. bert-base-cased
  std::string family = "bert";      // model family implemented in src/models
  std::string hf_class = "BertForMaskedLM";
  std::string task = "masked_lm";
  bool tiny = false;                // a small variant for tests and smoke runs
  int default_seq_len = 128;
  int64_t expected_parameters = 0;  // Hugging Face num_parameters() for hf_class (0: unknown)
  std::string source_path;          // YAML it came from (for messages)

  // Hugging Face config.json values.
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

  // Special token ids the data pipeline needs (BERT vocab defaults).
  int cls_token_id = 101;
  int sep_token_id = 102;
  int mask_token_id = 103;
  int first_word_token_id = 999;    // ids below this are special or unused in the vocabulary

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
    expected_parameters, source_path, vocab_size, hidden_size, num_hidden_layers, num_attention_heads,
    intermediate_size, max_position_embeddings, type_vocab_size, layer_norm_eps, hidden_act,
    hidden_dropout_prob, attention_probs_dropout_prob, initializer_range, pad_token_id, cls_token_id,
    sep_token_id, mask_token_id, first_word_token_id)

}  // namespace tune
