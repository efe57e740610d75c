// RoBERTa / XLM-RoBERTa masked-LM in the libtorch C++ frontend, with HF's module paths
// (roberta.embeddings..., roberta.encoder.layer.N..., lm_head...) so HF checkpoints load by name.
#include "models/roberta.h"
#include "models/hf_losses.h"
#include "models/sequence_classifiers.h"

#include <stdexcept>

namespace tune {

torch::Tensor roberta_position_ids(const torch::Tensor& input_ids, int64_t padding_idx) {
  const auto not_pad = input_ids.ne(padding_idx).to(torch::kInt64);
  return torch::cumsum(not_pad, 1) * not_pad + padding_idx;
}

RobertaEmbeddingsImpl::RobertaEmbeddingsImpl(const ModelConfig& c) : padding_idx(c.pad_token_id) {
  auto padded = [&](int64_t rows) {
    return torch::nn::Embedding(torch::nn::EmbeddingOptions(rows, c.hidden_size).padding_idx(c.pad_token_id));
  };
  word_embeddings = register_module("word_embeddings", padded(c.vocab_size));
  position_embeddings = register_module("position_embeddings", padded(c.max_position_embeddings));
  token_type_embeddings = register_module("token_type_embeddings", torch::nn::Embedding(c.type_vocab_size, c.hidden_size));
  LayerNorm = register_module("LayerNorm", make_layer_norm(c));
  dropout = register_module("dropout", torch::nn::Dropout(c.hidden_dropout_prob));
}

torch::Tensor RobertaEmbeddingsImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids) {
  const auto types = token_type_ids.defined() ? token_type_ids : torch::zeros_like(input_ids);
  auto h = word_embeddings(input_ids) + token_type_embeddings(types) +
           position_embeddings(roberta_position_ids(input_ids, padding_idx));
  return dropout(LayerNorm(h));
}

RobertaForMaskedLMImpl::RobertaForMaskedLMImpl(const ModelConfig& c) : config(c) {
  // Positions start after padding_idx, so the longest sequence is max_position_embeddings - padding_idx - 1.
  TORCH_CHECK(c.max_position_embeddings > c.pad_token_id + 1, c.source_path, ": max_position_embeddings too small");
  auto roberta = container(*this, "roberta");
  embeddings = roberta->register_module("embeddings", RobertaEmbeddings(c));
  layers = register_encoder_layers(*roberta, c);
  auto lm_head = container(*this, "lm_head");
  lm_head_dense = lm_head->register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
  lm_head_layer_norm = lm_head->register_module("layer_norm", make_layer_norm(c));
  lm_head_bias = lm_head->register_parameter("bias", torch::zeros({c.vocab_size}));
  init_bert_weights(*this, c.initializer_range);  // HF's RoBERTa _init_weights also zeroes lm_head.bias
}

torch::Tensor RobertaForMaskedLMImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                                              const torch::Tensor& attention_mask) {
  auto h = run_encoder(layers, embeddings(input_ids, token_type_ids), attention_mask);
  h = lm_head_layer_norm(torch::gelu(lm_head_dense(h)));
  return torch::linear(h, embeddings->word_embeddings->weight, lm_head_bias);  // tied decoder
}

torch::Tensor RobertaForMaskedLMImpl::loss(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                                           const torch::Tensor& attention_mask, const torch::Tensor& labels) {
  const auto logits = forward(input_ids, token_type_ids, attention_mask);
  return token_cross_entropy(logits, labels);
}

TrainableModel build_roberta(const ModelConfig& config) {
  if (config.hf_class == "RobertaForSequenceClassification" || config.hf_class == "XLMRobertaForSequenceClassification")
    return build_roberta_classifier(config);
  if (config.hf_class != "RobertaForMaskedLM" && config.hf_class != "XLMRobertaForMaskedLM")
    throw std::invalid_argument(config.source_path + ": key 'hf_class': expected RobertaForMaskedLM, "
                                "XLMRobertaForMaskedLM or their ForSequenceClassification for family roberta, got '" +
                                config.hf_class + "'");
  auto impl = RobertaForMaskedLM(config).ptr();
  return {impl,
          [impl](const Batch& b) { return impl->loss(b.input_ids, b.token_type_ids, b.attention_mask, b.labels); },
          [impl](const Batch& b) { return impl->forward(b.input_ids, b.token_type_ids, b.attention_mask); },
          {"position_ids", "embeddings.token_type_ids", "lm_head.decoder.weight", "lm_head.decoder.bias",
           "pooler.dense.weight", "pooler.dense.bias"}};
}

}  // namespace tune
