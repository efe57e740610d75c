// BERT for masked-LM (Hugging Face BertForMaskedLM) in the libtorch C++ frontend.
// Submodule and parameter names follow HF's state_dict, so HF weights map by name.
#pragma once
#include <torch/torch.h>

#include "models/attention.h"
#include "models/hf_modules.h"
#include "common/model_config.h"

namespace tune {

struct BertEmbeddingsImpl : torch::nn::Module {
  explicit BertEmbeddingsImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids);
  torch::nn::Embedding word_embeddings{nullptr}, position_embeddings{nullptr}, token_type_embeddings{nullptr};
  torch::nn::LayerNorm LayerNorm{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(BertEmbeddings);

struct BertSelfAttentionImpl : torch::nn::Module, AttentionKernelChoice {
  explicit BertSelfAttentionImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask);
  int num_heads, head_dim;
  torch::nn::Linear query{nullptr}, key{nullptr}, value{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(BertSelfAttention);

// dense -> dropout -> residual add -> LayerNorm: HF's BertSelfOutput and BertOutput share this shape.
struct BertResidualOutputImpl : torch::nn::Module {
  BertResidualOutputImpl(int64_t in_features, const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& residual);
  torch::nn::Linear dense{nullptr};
  torch::nn::LayerNorm LayerNorm{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(BertResidualOutput);

struct BertAttentionImpl : torch::nn::Module {
  explicit BertAttentionImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask);
  BertSelfAttention self{nullptr};
  BertResidualOutput output{nullptr};
};
TORCH_MODULE(BertAttention);

struct BertLayerImpl : torch::nn::Module {
  explicit BertLayerImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask);
  BertAttention attention{nullptr};
  torch::nn::Linear intermediate_dense{nullptr};  // HF: intermediate.dense
  BertResidualOutput output{nullptr};
};
TORCH_MODULE(BertLayer);

struct BertForMaskedLMImpl : torch::nn::Module {
  explicit BertForMaskedLMImpl(const ModelConfig& c);
  // Logits [batch, seq, vocab].
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                        const torch::Tensor& attention_mask);
  // HF's masked-LM loss: cross entropy over positions whose label is not -100.
  torch::Tensor loss(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                     const torch::Tensor& attention_mask, const torch::Tensor& labels);
  ModelConfig config;
  BertEmbeddings embeddings{nullptr};
  std::vector<BertLayer> layers;
  torch::nn::Linear transform_dense{nullptr};       // HF: cls.predictions.transform.dense
  torch::nn::LayerNorm transform_LayerNorm{nullptr};
  torch::Tensor decoder_bias;                      // HF: cls.predictions.bias; decoder weight is tied
};
TORCH_MODULE(BertForMaskedLM);

// HF's encoder under `base` (the "bert" or "roberta" container): encoder.layer.N, by HF's names.
std::vector<BertLayer> register_encoder_layers(torch::nn::Module& base, const ModelConfig& c);
// Every layer in turn over `hidden`, attending where attention_mask [batch, seq] is 1.
torch::Tensor run_encoder(std::vector<BertLayer>& layers, torch::Tensor hidden, const torch::Tensor& attention_mask);

// HF's _init_weights for BERT: normal(0, initializer_range) weights, zero biases, unit LayerNorm.
// RoBERTa and DistilBERT share it (their _init_weights add nothing a zero-initialised bias lacks).
void init_bert_weights(torch::nn::Module& module, double initializer_range);

// Pieces the other encoder families (roberta.cpp, distilbert.cpp) share with BERT.
// HF's extended mask from a [batch, seq] 0/1 mask: 0 where attended, the float minimum where masked,
// shaped [batch, 1, 1, seq] to broadcast over heads and queries.
torch::Tensor additive_attention_mask(const torch::Tensor& attention_mask);
// HF's attention on projected q, k, v [batch, seq, heads * head_dim]: softmax(q k^T / sqrt(d) + mask),
// dropout on the probabilities, heads merged back to [batch, seq, heads * head_dim]; by `kernel`.
torch::Tensor multi_head_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                   const torch::Tensor& additive_mask, int num_heads, torch::nn::Dropout& dropout,
                                   AttentionKernel kernel);

}  // namespace tune
