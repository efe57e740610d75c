// BERT for masked-LM (Hugging Face BertForMaskedLM) in the libtorch C++ frontend.
// Plain containers reproduce HF's module paths (bert.encoder.layer.N...., cls.predictions....).
#include "models/bert.h"
#include "models/activation_tap.h"
#include "models/hf_losses.h"

#include <cmath>

namespace tune {
torch::Tensor additive_attention_mask(const torch::Tensor& attention_mask) {
  const auto keep = attention_mask.unsqueeze(1).unsqueeze(2).to(torch::kFloat);
  return (1.0 - keep) * std::numeric_limits<float>::lowest();
}

torch::Tensor multi_head_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                   const torch::Tensor& additive_mask, int num_heads, torch::nn::Dropout& dropout,
                                   AttentionKernel kernel) {
  const int64_t batch = q.size(0), seq = q.size(1), head_dim = q.size(2) / num_heads;
  auto heads = [&](const torch::Tensor& t) { return t.view({batch, seq, num_heads, head_dim}).transpose(1, 2); };
  torch::Tensor context;
  if (kernel == AttentionKernel::sdpa) {
    context = fused_attention(heads(q), heads(k), heads(v), additive_mask,
                              1.0 / std::sqrt(static_cast<double>(head_dim)), *dropout);
  } else {
    auto scores = torch::matmul(heads(q), heads(k).transpose(-1, -2)) / std::sqrt(static_cast<double>(head_dim));
    context = torch::matmul(dropout(torch::softmax(scores + additive_mask, -1)), heads(v));
  }
  return context.transpose(1, 2).reshape({batch, seq, num_heads * head_dim});
}

BertEmbeddingsImpl::BertEmbeddingsImpl(const ModelConfig& c) {
  word_embeddings = register_module(
      "word_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(c.vocab_size, c.hidden_size).padding_idx(c.pad_token_id)));
  position_embeddings = register_module("position_embeddings", torch::nn::Embedding(c.max_position_embeddings, c.hidden_size));
  token_type_embeddings = register_module("token_type_embeddings", torch::nn::Embedding(c.type_vocab_size, c.hidden_size));
  LayerNorm = register_module("LayerNorm", make_layer_norm(c));
  dropout = register_module("dropout", torch::nn::Dropout(c.hidden_dropout_prob));
}

torch::Tensor BertEmbeddingsImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids) {
  const auto positions = torch::arange(input_ids.size(1), input_ids.options()).unsqueeze(0);
  auto h = word_embeddings(input_ids) + token_type_embeddings(token_type_ids) + position_embeddings(positions);
  return dropout(LayerNorm(h));
}

BertSelfAttentionImpl::BertSelfAttentionImpl(const ModelConfig& c)
    : num_heads(c.num_attention_heads), head_dim(c.hidden_size / c.num_attention_heads) {
  query = register_module("query", torch::nn::Linear(c.hidden_size, c.hidden_size));
  key = register_module("key", torch::nn::Linear(c.hidden_size, c.hidden_size));
  value = register_module("value", torch::nn::Linear(c.hidden_size, c.hidden_size));
  dropout = register_module("dropout", torch::nn::Dropout(c.attention_probs_dropout_prob));
}

torch::Tensor BertSelfAttentionImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask) {
  return multi_head_attention(query(hidden), key(hidden), value(hidden), additive_mask, num_heads, dropout,
                              attention_kernel);
}

BertResidualOutputImpl::BertResidualOutputImpl(int64_t in_features, const ModelConfig& c) {
  dense = register_module("dense", torch::nn::Linear(in_features, c.hidden_size));
  LayerNorm = register_module("LayerNorm", make_layer_norm(c));
  dropout = register_module("dropout", torch::nn::Dropout(c.hidden_dropout_prob));
}

torch::Tensor BertResidualOutputImpl::forward(const torch::Tensor& hidden, const torch::Tensor& residual) {
  return LayerNorm(dropout(dense(hidden)) + residual);
}

BertAttentionImpl::BertAttentionImpl(const ModelConfig& c) {
  self = register_module("self", BertSelfAttention(c));
  output = register_module("output", BertResidualOutput(c.hidden_size, c));
}

torch::Tensor BertAttentionImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask) {
  return output(self(hidden, additive_mask), hidden);
}

BertLayerImpl::BertLayerImpl(const ModelConfig& c) {
  attention = register_module("attention", BertAttention(c));
  intermediate_dense = container(*this, "intermediate")->register_module(
      "dense", torch::nn::Linear(c.hidden_size, c.intermediate_size));
  output = register_module("output", BertResidualOutput(c.intermediate_size, c));
}

torch::Tensor BertLayerImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask) {
  const auto attended = attention(hidden, additive_mask);
  return output(torch::gelu(intermediate_dense(attended)), attended);  // HF "gelu" is the exact erf form
}

std::vector<BertLayer> register_encoder_layers(torch::nn::Module& base, const ModelConfig& c) {
  std::vector<BertLayer> layers;
  auto layer_list = container(*container(base, "encoder"), "layer");
  for (int i = 0; i < c.num_hidden_layers; ++i)
    layers.push_back(layer_list->register_module(std::to_string(i), BertLayer(c)));
  return layers;
}

torch::Tensor run_encoder(std::vector<BertLayer>& layers, torch::Tensor hidden, const torch::Tensor& attention_mask) {
  const auto additive_mask = additive_attention_mask(attention_mask);
  for (size_t i = 0; i < layers.size(); ++i) hidden = tap_activation("encoder.layer", i, layers[i](hidden, additive_mask));
  return hidden;
}

BertForMaskedLMImpl::BertForMaskedLMImpl(const ModelConfig& c) : config(c) {
  auto bert = container(*this, "bert");
  embeddings = bert->register_module("embeddings", BertEmbeddings(c));
  layers = register_encoder_layers(*bert, c);
  auto predictions = container(*container(*this, "cls"), "predictions");
  auto transform = container(*predictions, "transform");
  transform_dense = transform->register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
  transform_LayerNorm = transform->register_module("LayerNorm", make_layer_norm(c));
  decoder_bias = predictions->register_parameter("bias", torch::zeros({c.vocab_size}));
  init_bert_weights(*this, c.initializer_range);
}

torch::Tensor BertForMaskedLMImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                                           const torch::Tensor& attention_mask) {
  auto h = run_encoder(layers, embeddings(input_ids, token_type_ids), attention_mask);
  h = transform_LayerNorm(torch::gelu(transform_dense(h)));
  return torch::linear(h, embeddings->word_embeddings->weight, decoder_bias);  // tied decoder
}

torch::Tensor BertForMaskedLMImpl::loss(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                                        const torch::Tensor& attention_mask, const torch::Tensor& labels) {
  const auto logits = forward(input_ids, token_type_ids, attention_mask);
  return token_cross_entropy(logits, labels);
}

void init_bert_weights(torch::nn::Module& module, double initializer_range) {
  torch::NoGradGuard no_grad;
  for (auto& m : module.modules(/*include_self=*/false)) {
    if (auto* linear = m->as<torch::nn::Linear>()) {
      linear->weight.normal_(0.0, initializer_range);
      if (linear->bias.defined()) linear->bias.zero_();
    } else if (auto* emb = m->as<torch::nn::Embedding>()) {
      emb->weight.normal_(0.0, initializer_range);
      if (emb->options.padding_idx()) emb->weight[*emb->options.padding_idx()].zero_();
    } else if (auto* ln = m->as<torch::nn::LayerNorm>()) {
      ln->weight.fill_(1.0);
      ln->bias.zero_();
    }
  }
}

}  // namespace tune
