// DistilBERT (Hugging Face DistilBertForMaskedLM and DistilBertForSequenceClassification) in libtorch.
// Submodule and parameter names follow HF's state_dict (distilbert.transformer.layer.N.attention.q_lin ...).
#pragma once
#include <torch/torch.h>

#include "models/attention.h"
#include "common/model_config.h"
#include "models/model_factory.h"

namespace tune {

// Word + learned position embeddings (no token types), LayerNorm, dropout.
struct DistilBertEmbeddingsImpl : torch::nn::Module {
  explicit DistilBertEmbeddingsImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& input_ids);
  torch::nn::Embedding word_embeddings{nullptr}, position_embeddings{nullptr};
  torch::nn::LayerNorm LayerNorm{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(DistilBertEmbeddings);

// HF's TransformerBlock: attention (q_lin, k_lin, v_lin, out_lin) -> sa_layer_norm, ffn (lin1, lin2) -> output_layer_norm.
struct DistilBertBlockImpl : torch::nn::Module, AttentionKernelChoice {
  explicit DistilBertBlockImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask);
  int num_heads;
  torch::nn::Linear q_lin{nullptr}, k_lin{nullptr}, v_lin{nullptr}, out_lin{nullptr}, lin1{nullptr}, lin2{nullptr};
  torch::nn::Dropout attention_dropout{nullptr}, ffn_dropout{nullptr};
  torch::nn::LayerNorm sa_layer_norm{nullptr}, output_layer_norm{nullptr};
};
TORCH_MODULE(DistilBertBlock);

// HF's DistilBertModel under the prefix "distilbert": embeddings + transformer.layer.N.
struct DistilBertEncoderImpl : torch::nn::Module {
  explicit DistilBertEncoderImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask);  // [batch, seq, dim]
  DistilBertEmbeddings embeddings{nullptr};
  std::vector<DistilBertBlock> layers;
};
TORCH_MODULE(DistilBertEncoder);

struct DistilBertForMaskedLMImpl : torch::nn::Module {
  explicit DistilBertForMaskedLMImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask);  // [batch, seq, vocab]
  // HF's masked-LM loss: cross entropy over positions whose label is not -100.
  torch::Tensor loss(const torch::Tensor& input_ids, const torch::Tensor& attention_mask, const torch::Tensor& labels);
  ModelConfig config;
  DistilBertEncoder distilbert{nullptr};
  torch::nn::Linear vocab_transform{nullptr};
  torch::nn::LayerNorm vocab_layer_norm{nullptr};
  torch::Tensor vocab_projector_bias;  // HF: vocab_projector.bias; its weight is tied to word_embeddings
};
TORCH_MODULE(DistilBertForMaskedLM);

struct DistilBertForSequenceClassificationImpl : torch::nn::Module {
  explicit DistilBertForSequenceClassificationImpl(const ModelConfig& c);
  // Logits [batch, num_labels] from the first token: pre_classifier -> relu -> dropout -> classifier.
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask);
  // HF's single-label loss: cross entropy over num_labels; labels [batch].
  torch::Tensor loss(const torch::Tensor& input_ids, const torch::Tensor& attention_mask, const torch::Tensor& labels);
  ModelConfig config;
  DistilBertEncoder distilbert{nullptr};
  torch::nn::Linear pre_classifier{nullptr}, classifier{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(DistilBertForSequenceClassification);

// The factory's entry: the head named by hf_class (DistilBertForMaskedLM or DistilBertForSequenceClassification).
// Throws std::invalid_argument naming the file for another class.
TrainableModel build_distilbert(const ModelConfig& config);

}  // namespace tune
