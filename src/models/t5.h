// T5 for span corruption / seq2seq (Hugging Face T5ForConditionalGeneration) in the libtorch C++ frontend.
// Submodule and parameter names follow HF's state_dict (encoder.block.N.layer.0.SelfAttention.q, ...).
#pragma once
#include <torch/torch.h>

#include "models/attention.h"
#include "common/model_config.h"

namespace tune {

// T5's architecture values beyond the common ones, read from the HF config.
struct T5Dims {
  explicit T5Dims(const ModelConfig& c);
  int64_t d_model, d_kv, d_ff, num_heads, num_layers, num_decoder_layers, num_buckets, max_distance;
  double eps, dropout, factor;
  bool gated;              // feed_forward_proj "gated-ACT": wi_0 / wi_1 / wo
  std::string activation;  // HF's dense_act_fn ("gated-gelu" means gelu_new)
  bool scale_decoder_outputs;  // original T5 scales by d_model^-0.5 before the tied lm_head; v1.1 does not
};

// RMS norm: weight only, no mean subtraction, variance in fp32 (HF's T5LayerNorm).
struct T5LayerNormImpl : torch::nn::Module {
  T5LayerNormImpl(int64_t size, double eps);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight;
  double eps;
};
TORCH_MODULE(T5LayerNorm);

struct T5AttentionImpl : torch::nn::Module, AttentionKernelChoice {
  T5AttentionImpl(const T5Dims& d, bool has_relative_attention_bias, bool bidirectional);
  // keys: the encoder output for cross-attention, else `hidden`. position_bias [1, heads, q, k] or undefined;
  // additive_mask broadcasts to [batch, heads, q, k] or is undefined (nothing masked).
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& keys, const torch::Tensor& position_bias,
                        const torch::Tensor& additive_mask);
  // The learned bias for each (query, key) offset, from HF's log-spaced relative position buckets.
  torch::Tensor compute_bias(int64_t query_length, int64_t key_length, const torch::Device& device);
  int64_t num_heads, d_kv, num_buckets, max_distance;
  bool bidirectional;
  torch::nn::Linear q{nullptr}, k{nullptr}, v{nullptr}, o{nullptr};
  torch::nn::Embedding relative_attention_bias{nullptr};  // block 0 of each stack only
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(T5Attention);

// HF's T5DenseActDense (wi, wo) or T5DenseGatedActDense (wi_0, wi_1, wo); no biases.
struct T5DenseImpl : torch::nn::Module {
  explicit T5DenseImpl(const T5Dims& d);
  torch::Tensor forward(const torch::Tensor& x);
  bool gated;
  std::string activation;
  torch::nn::Linear wi{nullptr}, wi_0{nullptr}, wi_1{nullptr}, wo{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(T5Dense);

// One T5 block: layer.0 self-attention, (decoder) layer.1 cross-attention, then the feed-forward layer,
// each pre-normed and added to the residual.
struct T5BlockImpl : torch::nn::Module {
  T5BlockImpl(const T5Dims& d, bool is_decoder, bool has_relative_attention_bias);
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& self_bias, const torch::Tensor& self_mask,
                        const torch::Tensor& encoder_hidden, const torch::Tensor& cross_mask);
  T5Attention self_attention{nullptr}, cross_attention{nullptr};  // HF: layer.0.SelfAttention, layer.1.EncDecAttention
  T5LayerNorm self_norm{nullptr}, cross_norm{nullptr}, ff_norm{nullptr};
  T5Dense ff{nullptr};  // HF: layer.{1|2}.DenseReluDense
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(T5Block);

// Encoder or decoder stack; its embed_tokens is the model's shared embedding (passed in, not registered).
struct T5StackImpl : torch::nn::Module {
  T5StackImpl(const T5Dims& d, bool is_decoder);
  torch::Tensor forward(const torch::Tensor& embeddings, const torch::Tensor& self_mask,
                        const torch::Tensor& encoder_hidden, const torch::Tensor& cross_mask);
  bool is_decoder;
  std::vector<T5Block> blocks;
  T5LayerNorm final_layer_norm{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(T5Stack);

struct T5ForConditionalGenerationImpl : torch::nn::Module {
  explicit T5ForConditionalGenerationImpl(const ModelConfig& c);
  // Logits [batch, target, vocab]. attention_mask (1 = token) masks the encoder's padding; may be undefined.
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                        const torch::Tensor& decoder_input_ids);
  // HF's loss: cross entropy over labels that are not -100. decoder_input_ids undefined: labels shifted right.
  torch::Tensor loss(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                     const torch::Tensor& decoder_input_ids, const torch::Tensor& labels);
  // HF's _shift_right: start token (pad) first, -100 replaced by pad.
  torch::Tensor shift_right(const torch::Tensor& labels) const;
  ModelConfig config;
  T5Dims dims;
  torch::nn::Embedding shared{nullptr};  // also encoder/decoder embed_tokens and the lm_head (tied)
  T5Stack encoder{nullptr}, decoder{nullptr};
};
TORCH_MODULE(T5ForConditionalGeneration);

// HF's T5 _init_weights (initializer_factor scaled): shared normal(0, 1), q by (d_model*d_kv)^-0.5,
// k/v by d_model^-0.5, o by (heads*d_kv)^-0.5, wi by d_model^-0.5, wo by d_ff^-0.5, norms at 1.
void init_t5_weights(T5ForConditionalGenerationImpl& model);

}  // namespace tune
