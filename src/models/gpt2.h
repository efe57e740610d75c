// GPT-2 for causal LM (Hugging Face GPT2LMHeadModel) in the libtorch C++ frontend.
// Submodule and parameter names follow HF's state_dict (transformer.h.N.attn.c_attn, ...), so HF weights map by name.
#pragma once
#include <torch/torch.h>

#include "models/attention.h"
#include "common/model_config.h"

namespace tune {

// HF's Conv1D: a linear layer whose weight is stored [in, out] (y = x @ W + b), as OpenAI's checkpoints have it.
struct Conv1DImpl : torch::nn::Module {
  Conv1DImpl(int64_t in_features, int64_t out_features);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight, bias;
};
TORCH_MODULE(Conv1D);

struct GPT2AttentionImpl : torch::nn::Module, AttentionKernelChoice {
  GPT2AttentionImpl(const ModelConfig& c, int layer_index);
  // additive_mask: [batch, 1, seq, seq], 0 where attended, the float minimum elsewhere.
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask);
  int num_heads, head_dim;
  double scaling;
  Conv1D c_attn{nullptr}, c_proj{nullptr};
  torch::nn::Dropout attn_dropout{nullptr}, resid_dropout{nullptr};
};
TORCH_MODULE(GPT2Attention);

struct GPT2MLPImpl : torch::nn::Module {
  explicit GPT2MLPImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& hidden);
  std::string activation;
  Conv1D c_fc{nullptr}, c_proj{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(GPT2MLP);

// Pre-LayerNorm block: h + attn(ln_1(h)), then h + mlp(ln_2(h)).
struct GPT2BlockImpl : torch::nn::Module {
  GPT2BlockImpl(const ModelConfig& c, int layer_index);
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask);
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  GPT2Attention attn{nullptr};
  GPT2MLP mlp{nullptr};
};
TORCH_MODULE(GPT2Block);

struct GPT2LMHeadModelImpl : torch::nn::Module {
  explicit GPT2LMHeadModelImpl(const ModelConfig& c);
  // Logits [batch, seq, vocab]; attention_mask (1 = token, 0 = padding) may be undefined (all tokens).
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask);
  // HF's causal-LM loss: position t predicts labels[t + 1]; labels of -100 are not scored.
  torch::Tensor loss(const torch::Tensor& input_ids, const torch::Tensor& attention_mask, const torch::Tensor& labels);
  ModelConfig config;
  torch::nn::Embedding wte{nullptr}, wpe{nullptr};  // HF: transformer.wte / transformer.wpe
  torch::nn::Dropout drop{nullptr};
  std::vector<GPT2Block> h;
  torch::nn::LayerNorm ln_f{nullptr};  // lm_head is tied to wte: no parameter of its own
};
TORCH_MODULE(GPT2LMHeadModel);

// HF's GPT-2 _init_weights: normal(0, initializer_range) for embeddings and Conv1D weights, zero biases,
// unit LayerNorms, and every c_proj weight scaled by 1/sqrt(2 * n_layer) (two residual paths per block).
void init_gpt2_weights(GPT2LMHeadModelImpl& model);

}  // namespace tune
