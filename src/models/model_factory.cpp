// Builds a trainable model from its config: the module (for parameters and devices) and its loss.
// One branch per family; the loss closure keeps the concrete module type out of the backends.
#include "models/model_factory.h"

#include <cstdio>
#include <stdexcept>

#include "models/attention.h"
#include "models/bert.h"
#include "models/gpt2.h"
#include "models/t5.h"
#include "models/distilbert.h"
#include "models/hf_weights.h"
#include "models/roberta.h"
#include "models/sequence_classifiers.h"
#include "util/join.h"

namespace tune {

namespace {

TrainableModel build_bert(const ModelConfig& config) {
  if (config.hf_class == "BertForSequenceClassification") return build_bert_classifier(config);
  if (config.hf_class != "BertForMaskedLM")
    throw std::invalid_argument(config.source_path + ": key 'hf_class': expected BertForMaskedLM or "
                                "BertForSequenceClassification for family bert, got '" + config.hf_class + "'");
  auto impl = BertForMaskedLM(config).ptr();
  return {impl,
          [impl](const Batch& b) { return impl->loss(b.input_ids, b.token_type_ids, b.attention_mask, b.labels); },
          [impl](const Batch& b) { return impl->forward(b.input_ids, b.token_type_ids, b.attention_mask); },
          {"position_ids", "cls.predictions.decoder.weight", "cls.predictions.decoder.bias", "pooler.dense.weight",
           "pooler.dense.bias", "cls.seq_relationship.weight", "cls.seq_relationship.bias"}};
}

TrainableModel build_gpt2(const ModelConfig& config) {
  auto impl = GPT2LMHeadModel(config).ptr();
  return {impl, [impl](const Batch& b) { return impl->loss(b.input_ids, b.attention_mask, b.labels); },
          [impl](const Batch& b) { return impl->forward(b.input_ids, b.attention_mask); },
          {"attn.bias", "attn.masked_bias", "lm_head.weight"}};
}

TrainableModel build_t5(const ModelConfig& config) {
  auto impl = T5ForConditionalGeneration(config).ptr();
  auto decoder_ids = [impl](const Batch& b) {
    return b.decoder_input_ids.defined() ? b.decoder_input_ids : impl->shift_right(b.labels);
  };
  return {impl,
          [impl](const Batch& b) { return impl->loss(b.input_ids, b.attention_mask, b.decoder_input_ids, b.labels); },
          [impl, decoder_ids](const Batch& b) { return impl->forward(b.input_ids, b.attention_mask, decoder_ids(b)); },
          {"lm_head.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight"}};
}

TrainableModel build_family(const ModelConfig& config) {
  if (config.family == "bert") return build_bert(config);
  if (config.family == "gpt2") return build_gpt2(config);
  if (config.family == "t5") return build_t5(config);
  if (config.family == "roberta") return build_roberta(config);
  if (config.family == "distilbert") return build_distilbert(config);
  throw std::invalid_argument("model family '" + config.family + "' of " + config.name +
                              " is not implemented in this build");
}

}  // namespace

TrainableModel build_model(const ModelConfig& config, uint64_t seed, const std::string& attention) {
  const AttentionKernel kernel = parse_attention_kernel(attention);  // before building: a bad name costs nothing
  torch::manual_seed(seed);
  TrainableModel model = build_family(config);
  set_attention_kernel(*model.module, kernel);
  return model;
}

// Logs on stderr how many tensors loaded, and the head tensors the checkpoint lacked (initialised as HF does).
TrainableModel build_model_with_weights(const ModelConfig& config, uint64_t seed, const std::string& weights_dir,
                                        const std::string& attention) {
  TrainableModel model = build_model(config, seed, attention);
  if (weights_dir.empty()) return model;
  const WeightLoadReport report =
      load_hf_weights(*model.module, weights_dir, model.ignored_checkpoint_suffixes, hf_base_prefix(config.family));
  std::fprintf(stderr, "tune: weights: %d tensors loaded from %s\n", report.loaded, weights_dir.c_str());
  if (!report.initialised.empty())
    std::fprintf(stderr, "tune: weights: not in the checkpoint, initialised as transformers does: %s\n",
                 join(report.initialised).c_str());
  return model;
}

int64_t parameter_count(const torch::nn::Module& module) {
  int64_t total = 0;
  for (const auto& p : module.parameters()) total += p.numel();
  return total;
}

}  // namespace tune
