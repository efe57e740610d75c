// The model-type table: what each supported HF model_type maps to, and transformers' own config defaults, so a
// config.json that omits a key means what it means to transformers (tests/test_hub.cpp compares them with it).
#include "hub/hf_model_types.h"

#include <stdexcept>

#include "util/join.h"

namespace tune {
namespace {

constexpr const char* kBertDefaults = R"({"vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
  "num_attention_heads": 12, "intermediate_size": 3072, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 512, "type_vocab_size": 2,
  "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute"})";
// RobertaConfig's vocab_size default is RoBERTa's own (50265); XLMRobertaConfig's differs only there (30522).
constexpr const char* kRobertaDefaults = R"({"vocab_size": 50265, "hidden_size": 768, "num_hidden_layers": 12,
  "num_attention_heads": 12, "intermediate_size": 3072, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 512, "type_vocab_size": 2,
  "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
  "position_embedding_type": "absolute"})";
constexpr const char* kDistilBertDefaults = R"({"vocab_size": 30522, "max_position_embeddings": 512,
  "sinusoidal_pos_embds": false, "n_layers": 6, "n_heads": 12, "dim": 768, "hidden_dim": 3072, "dropout": 0.1,
  "attention_dropout": 0.1, "activation": "gelu", "initializer_range": 0.02, "qa_dropout": 0.1,
  "seq_classif_dropout": 0.2, "pad_token_id": 0})";
constexpr const char* kGpt2Defaults = R"({"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12,
  "n_head": 12, "n_inner": null, "activation_function": "gelu_new", "resid_pdrop": 0.1, "embd_pdrop": 0.1,
  "attn_pdrop": 0.1, "layer_norm_epsilon": 1e-05, "initializer_range": 0.02, "scale_attn_weights": true,
  "bos_token_id": 50256, "eos_token_id": 50256, "scale_attn_by_inverse_layer_idx": false,
  "reorder_and_upcast_attn": false})";
constexpr const char* kT5Defaults = R"({"vocab_size": 32128, "d_model": 512, "d_kv": 64, "d_ff": 2048,
  "num_layers": 6, "num_decoder_layers": null, "num_heads": 8, "relative_attention_num_buckets": 32,
  "relative_attention_max_distance": 128, "dropout_rate": 0.1, "layer_norm_epsilon": 1e-06,
  "initializer_factor": 1.0, "feed_forward_proj": "relu", "pad_token_id": 0, "eos_token_id": 1})";

constexpr HfModelType kModelTypes[] = {
    {"bert", "bert", "Bert", "masked_lm", kBertDefaults},
    {"roberta", "roberta", "Roberta", "masked_lm", kRobertaDefaults},
    {"xlm-roberta", "roberta", "XLMRoberta", "masked_lm", kRobertaDefaults, R"({"vocab_size": 30522})"},
    {"distilbert", "distilbert", "DistilBert", "masked_lm", kDistilBertDefaults},
    {"gpt2", "gpt2", "GPT2", "causal_lm", kGpt2Defaults},
    {"t5", "t5", "T5", "span_corruption", kT5Defaults},
};

// Each task's head class name after the prefix; GPT-2's causal head is HF's GPT2LMHeadModel.
struct TaskHead {
  const char* task;
  const char* suffix;
};
constexpr TaskHead kTaskHeads[] = {{"masked_lm", "ForMaskedLM"},
                                   {"causal_lm", "LMHeadModel"},
                                   {"span_corruption", "ForConditionalGeneration"},
                                   {"sequence_classification", "ForSequenceClassification"}};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The Hugging Face model classes src/models builds (model_factory.cpp): a config naming another head is mapped
// to one of these or refused before any trial.
constexpr const char* kImplementedHfClasses[] = {
    "BertForMaskedLM", "BertForSequenceClassification", "RobertaForMaskedLM", "RobertaForSequenceClassification",
    "XLMRobertaForMaskedLM", "XLMRobertaForSequenceClassification", "DistilBertForMaskedLM",
    "DistilBertForSequenceClassification", "GPT2LMHeadModel", "T5ForConditionalGeneration"};

bool implemented(const std::string& hf_class) {
  for (const char* c : kImplementedHfClasses)
    if (hf_class == c) return true;
  return false;
}

}  // namespace

std::vector<std::string> supported_model_types() {
  std::vector<std::string> names;
  for (const auto& t : kModelTypes) names.push_back(t.model_type);
  return names;
}

const HfModelType& hf_model_type(const std::string& model_type, const std::string& architecture,
                                 const std::string& file) {
  for (const auto& t : kModelTypes)
    if (model_type == t.model_type) return t;
  const std::string what = architecture.empty() ? "model_type '" + model_type + "'"
                                                : "architecture '" + architecture + "' (model_type '" + model_type + "')";
  throw std::invalid_argument(file + ": " + what + " has no family in tune; supported model types: " +
                              join(supported_model_types()));
}

nlohmann::json hf_config_defaults(const HfModelType& type) {
  nlohmann::json defaults = nlohmann::json::parse(type.defaults);
  if (type.overrides) defaults.update(nlohmann::json::parse(type.overrides));
  return defaults;
}

std::string canonical_task(const std::string& task) {
  if (task == "classification") return "sequence_classification";
  for (const auto& h : kTaskHeads)
    if (task == h.task) return task;
  std::vector<std::string> known{"classification"};
  for (const auto& h : kTaskHeads) known.push_back(h.task);
  throw std::invalid_argument("--task '" + task + "': expected one of " + join(known));
}

std::string task_of_architecture(const HfModelType& type, const std::string& architecture) {
  if (ends_with(architecture, "ForPreTraining")) return "masked_lm";  // BERT's MLM + NSP: the MLM head is kept
  if (ends_with(architecture, "ForCausalLM")) return "causal_lm";
  for (const auto& h : kTaskHeads)
    if (architecture == type.class_prefix + std::string(h.suffix)) return h.task;
  return "";
}

std::string hf_class_for_task(const HfModelType& type, const std::string& task, const std::string& file) {
  for (const auto& h : kTaskHeads) {
    if (task != h.task) continue;
    const std::string hf_class = type.class_prefix + std::string(h.suffix);
    if (implemented(hf_class)) return hf_class;
    std::vector<std::string> own;
    for (const char* c : kImplementedHfClasses)
      if (std::string(c).rfind(type.class_prefix, 0) == 0) own.push_back(c);
    throw std::invalid_argument(file + ": task " + task + " needs " + hf_class + ", which tune does not implement; for " +
                                type.model_type + " it implements " + join(own));
  }
  throw std::invalid_argument(file + ": unknown task '" + task + "'");
}

}  // namespace tune
