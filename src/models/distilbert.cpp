// DistilBERT's encoder and its masked-LM and sequence-classification heads, as in HF's modeling_distilbert.
// LayerNorm eps is HF's fixed 1e-12; activation must be "gelu" (the exact erf form HF uses).
#include "models/distilbert.h"
#include "models/activation_tap.h"
#include "models/hf_losses.h"

#include <stdexcept>

#include "models/bert.h"

namespace tune {
namespace {

torch::nn::LayerNorm distilbert_layer_norm(const ModelConfig& c) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.hidden_size}).eps(1e-12));
}

void require_gelu(const ModelConfig& c) {
  if (c.hidden_act != "gelu")
    throw std::invalid_argument(c.source_path + ": key 'config.activation': expected 'gelu', got '" + c.hidden_act + "'");
}

}  // namespace

DistilBertEmbeddingsImpl::DistilBertEmbeddingsImpl(const ModelConfig& c) {
  word_embeddings = register_module(
      "word_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(c.vocab_size, c.hidden_size).padding_idx(c.pad_token_id)));
  position_embeddings = register_module("position_embeddings", torch::nn::Embedding(c.max_position_embeddings, c.hidden_size));
  LayerNorm = register_module("LayerNorm", distilbert_layer_norm(c));
  dropout = register_module("dropout", torch::nn::Dropout(c.hidden_dropout_prob));
}

torch::Tensor DistilBertEmbeddingsImpl::forward(const torch::Tensor& input_ids) {
  const auto positions = torch::arange(input_ids.size(1), input_ids.options()).unsqueeze(0);
  return dropout(LayerNorm(word_embeddings(input_ids) + position_embeddings(positions)));
}

DistilBertBlockImpl::DistilBertBlockImpl(const ModelConfig& c) : num_heads(c.num_attention_heads) {
  auto attention = container(*this, "attention");
  auto linear = [&](torch::nn::Module& parent, const char* name, int64_t in, int64_t out) {
    return parent.register_module(name, torch::nn::Linear(in, out));
  };
  q_lin = linear(*attention, "q_lin", c.hidden_size, c.hidden_size);
  k_lin = linear(*attention, "k_lin", c.hidden_size, c.hidden_size);
  v_lin = linear(*attention, "v_lin", c.hidden_size, c.hidden_size);
  out_lin = linear(*attention, "out_lin", c.hidden_size, c.hidden_size);
  attention_dropout = attention->register_module("dropout", torch::nn::Dropout(c.attention_probs_dropout_prob));
  sa_layer_norm = register_module("sa_layer_norm", distilbert_layer_norm(c));
  auto ffn = container(*this, "ffn");
  lin1 = linear(*ffn, "lin1", c.hidden_size, c.intermediate_size);
  lin2 = linear(*ffn, "lin2", c.intermediate_size, c.hidden_size);
  ffn_dropout = ffn->register_module("dropout", torch::nn::Dropout(c.hidden_dropout_prob));
  output_layer_norm = register_module("output_layer_norm", distilbert_layer_norm(c));
}

torch::Tensor DistilBertBlockImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask) {
  const auto context = multi_head_attention(q_lin(hidden), k_lin(hidden), v_lin(hidden), additive_mask, num_heads,
                                            attention_dropout, attention_kernel);
  const auto attended = sa_layer_norm(out_lin(context) + hidden);
  return output_layer_norm(ffn_dropout(lin2(torch::gelu(lin1(attended)))) + attended);
}

DistilBertEncoderImpl::DistilBertEncoderImpl(const ModelConfig& c) {
  require_gelu(c);
  embeddings = register_module("embeddings", DistilBertEmbeddings(c));
  auto layer_list = container(*container(*this, "transformer"), "layer");
  for (int i = 0; i < c.num_hidden_layers; ++i)
    layers.push_back(layer_list->register_module(std::to_string(i), DistilBertBlock(c)));
}

torch::Tensor DistilBertEncoderImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) {
  const auto additive_mask = additive_attention_mask(attention_mask);
  auto h = embeddings(input_ids);
  for (size_t i = 0; i < layers.size(); ++i) h = tap_activation("transformer.layer", i, layers[i](h, additive_mask));
  return h;
}

DistilBertForMaskedLMImpl::DistilBertForMaskedLMImpl(const ModelConfig& c) : config(c) {
  distilbert = register_module("distilbert", DistilBertEncoder(c));
  vocab_transform = register_module("vocab_transform", torch::nn::Linear(c.hidden_size, c.hidden_size));
  vocab_layer_norm = register_module("vocab_layer_norm", distilbert_layer_norm(c));
  vocab_projector_bias = container(*this, "vocab_projector")->register_parameter("bias", torch::zeros({c.vocab_size}));
  init_bert_weights(*this, c.initializer_range);  // HF's DistilBERT _init_weights is the generic one
}

torch::Tensor DistilBertForMaskedLMImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) {
  const auto h = vocab_layer_norm(torch::gelu(vocab_transform(distilbert(input_ids, attention_mask))));
  return torch::linear(h, distilbert->embeddings->word_embeddings->weight, vocab_projector_bias);  // tied
}

torch::Tensor DistilBertForMaskedLMImpl::loss(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                              const torch::Tensor& labels) {
  const auto logits = forward(input_ids, attention_mask);
  return token_cross_entropy(logits, labels);
}

DistilBertForSequenceClassificationImpl::DistilBertForSequenceClassificationImpl(const ModelConfig& c) : config(c) {
  if (c.num_labels < 2)  // HF turns num_labels 1 into regression, which this head does not implement
    throw std::invalid_argument(c.source_path + ": key 'config.num_labels': expected at least 2, got " +
                                std::to_string(c.num_labels));
  distilbert = register_module("distilbert", DistilBertEncoder(c));
  pre_classifier = register_module("pre_classifier", torch::nn::Linear(c.hidden_size, c.hidden_size));
  classifier = register_module("classifier", torch::nn::Linear(c.hidden_size, c.num_labels));
  dropout = register_module("dropout", torch::nn::Dropout(c.hf_double("seq_classif_dropout", 0.2)));
  init_bert_weights(*this, c.initializer_range);
}

torch::Tensor DistilBertForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                               const torch::Tensor& attention_mask) {
  const auto first_token = distilbert(input_ids, attention_mask).select(1, 0);
  return classifier(dropout(torch::relu(pre_classifier(first_token))));
}

torch::Tensor DistilBertForSequenceClassificationImpl::loss(const torch::Tensor& input_ids,
                                                            const torch::Tensor& attention_mask,
                                                            const torch::Tensor& labels) {
  return torch::nn::functional::cross_entropy(forward(input_ids, attention_mask), labels.view({-1}));
}

namespace {

template <typename Impl>
TrainableModel trainable(std::shared_ptr<Impl> impl) {
  return {impl, [impl](const Batch& b) { return impl->loss(b.input_ids, b.attention_mask, b.labels); },
          [impl](const Batch& b) { return impl->forward(b.input_ids, b.attention_mask); },
          {"position_ids", "vocab_projector.weight"}};
}

}  // namespace

TrainableModel build_distilbert(const ModelConfig& config) {
  if (config.hf_class == "DistilBertForMaskedLM") return trainable(DistilBertForMaskedLM(config).ptr());
  if (config.hf_class == "DistilBertForSequenceClassification")
    return trainable(DistilBertForSequenceClassification(config).ptr());
  throw std::invalid_argument(config.source_path + ": key 'hf_class': expected DistilBertForMaskedLM or "
                              "DistilBertForSequenceClassification for family distilbert, got '" + config.hf_class + "'");
}

}  // namespace tune
