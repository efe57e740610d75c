// The Hugging Face model types tune implements: config.json's model_type -> family, head class names and the
// config class's defaults as transformers defines them. The one table the hub reads.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tune {

struct HfModelType {
  const char* model_type;    // config.json's model_type
  const char* family;        // src/models family
  const char* class_prefix;  // HF's class-name prefix: "Bert", "XLMRoberta", "GPT2"
  const char* default_task;  // the family's pre-training task
  const char* defaults;      // JSON: the config class's __init__ defaults that tune reads
  const char* overrides = nullptr;  // JSON: where a sibling class's defaults differ (XLM-R's from RoBERTa's)
};

// Throws std::invalid_argument naming `file`, the model_type (and the architecture, when given) and listing the
// supported model types.
const HfModelType& hf_model_type(const std::string& model_type, const std::string& architecture,
                                 const std::string& file);
std::vector<std::string> supported_model_types();
nlohmann::json hf_config_defaults(const HfModelType& type);

// The tasks a config's head may train: masked_lm, causal_lm, span_corruption, sequence_classification.
// `task` may also be "classification" (sequence_classification). Throws naming the value when unknown.
std::string canonical_task(const std::string& task);
// The task an architecture's head trains ("" for the base model or a head tune does not train, e.g. QA).
std::string task_of_architecture(const HfModelType& type, const std::string& architecture);
// The class training `task` (e.g. BertForSequenceClassification). Throws naming the class when tune does not
// implement it, listing the classes it does for the family.
std::string hf_class_for_task(const HfModelType& type, const std::string& task, const std::string& file);

}  // namespace tune
