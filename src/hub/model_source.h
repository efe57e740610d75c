// Where --model comes from: a tested model's YAML (with the HF cache's weights and tokenizer when the cache holds
// the model), a user's model YAML, or a Hugging Face checkpoint folder (save_pretrained, or a cache snapshot).
#pragma once
#include <string>
#include <vector>

#include "common/model_config.h"

namespace tune {

struct ModelSource {
  ModelConfig config;
  std::string weights;                // checkpoint folder; empty: random init
  std::string tokenizer_dir;          // tokenizer folder; empty: the hashing fallback
  std::string origin;                 // one line for the log: which YAML, folder or cache snapshot
  std::vector<std::string> notes;     // what a user should know: keys not read, heads initialised, cache unused
};

struct ModelSourceOptions {
  std::string task;                   // empty: the checkpoint's head, else the family's pre-training task
  bool use_hf_cache = true;           // a tested model's pretrained weights and tokenizer from the HF cache
};

// A folder with config.json: the HF checkpoint there. Throws std::invalid_argument naming config.json and the
// key for a config tune cannot train as written (an unknown architecture, a math-changing value).
ModelSource load_hf_folder(const std::string& dir, const ModelSourceOptions& options, const std::string& name = "");

// NAME (tested_models/NAME.yaml), a YAML path, a folder with config.json, or a Hub id (ORG/NAME) in the HF cache.
// Throws std::invalid_argument naming the input and what was expected.
ModelSource resolve_model_source(const std::string& name_or_path, const ModelSourceOptions& options = {});

// Sets config.task and its head class (e.g. sequence_classification: BertForSequenceClassification).
void apply_task(ModelConfig& config, const std::string& task);

}  // namespace tune
