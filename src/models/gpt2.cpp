// GPT-2 for causal LM (Hugging Face GPT2LMHeadModel) in the libtorch C++ frontend.
// Plain containers reproduce HF's module paths (transformer.h.N....); the math follows HF's eager attention.
#include "models/gpt2.h"
#include "models/activation_tap.h"
#include "models/hf_losses.h"

#include <cmath>
#include <limits>

#include "models/hf_activation.h"
#include "models/hf_modules.h"

namespace tune {
namespace {

// HF's causal mask combined with the padding mask: query i sees key j when j <= i and key j is a token.
// Additive, like HF's eager path (0 attended, the float minimum masked), broadcast over heads.
torch::Tensor causal_additive_mask(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) {
  const int64_t seq = input_ids.size(1);
  auto allowed = torch::ones({seq, seq}, input_ids.options().dtype(torch::kBool)).tril().view({1, 1, seq, seq});
  if (attention_mask.defined()) allowed = allowed.logical_and(attention_mask.to(torch::kBool).view({-1, 1, 1, seq}));
  return (1.0 - allowed.to(torch::kFloat)) * std::numeric_limits<float>::lowest();
}

}  // namespace

Conv1DImpl::Conv1DImpl(int64_t in_features, int64_t out_features) {
  weight = register_parameter("weight", torch::empty({in_features, out_features}));
  bias = register_parameter("bias", torch::zeros({out_features}));
}

torch::Tensor Conv1DImpl::forward(const torch::Tensor& x) {
  auto sizes = x.sizes().vec();
  sizes.back() = weight.size(1);
  return torch::addmm(bias, x.reshape({-1, x.size(-1)}), weight).view(sizes);
}

GPT2AttentionImpl::GPT2AttentionImpl(const ModelConfig& c, int layer_index)
    : num_heads(c.num_attention_heads), head_dim(c.hidden_size / c.num_attention_heads), scaling(1.0) {
  if (c.hf_bool("scale_attn_weights", true)) scaling = 1.0 / std::sqrt(static_cast<double>(head_dim));
  if (c.hf_bool("scale_attn_by_inverse_layer_idx", false)) scaling /= static_cast<double>(layer_index + 1);
  c_attn = register_module("c_attn", Conv1D(c.hidden_size, 3 * c.hidden_size));
  c_proj = register_module("c_proj", Conv1D(c.hidden_size, c.hidden_size));
  attn_dropout = register_module("attn_dropout", torch::nn::Dropout(c.attention_probs_dropout_prob));
  resid_dropout = register_module("resid_dropout", torch::nn::Dropout(c.hidden_dropout_prob));
}

torch::Tensor GPT2AttentionImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask) {
  const int64_t batch = hidden.size(0), seq = hidden.size(1), width = num_heads * head_dim;
  const auto qkv = c_attn(hidden).split(width, /*dim=*/2);
  auto heads = [&](const torch::Tensor& t) { return t.view({batch, seq, num_heads, head_dim}).transpose(1, 2); };
  const auto q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
  torch::Tensor context;
  if (attention_kernel == AttentionKernel::sdpa) {
    context = fused_attention(q, k, v, additive_mask, scaling, *attn_dropout);  // the mask is causal and padding
  } else {
    const auto scores = torch::matmul(q, k.transpose(-1, -2)) * scaling + additive_mask;
    context = torch::matmul(attn_dropout(torch::softmax(scores, -1)), v);
  }
  return resid_dropout(c_proj(context.transpose(1, 2).reshape({batch, seq, width})));
}

GPT2MLPImpl::GPT2MLPImpl(const ModelConfig& c) : activation(c.hidden_act) {
  check_hf_activation(activation, c.source_path);
  c_fc = register_module("c_fc", Conv1D(c.hidden_size, c.intermediate_size));
  c_proj = register_module("c_proj", Conv1D(c.intermediate_size, c.hidden_size));
  dropout = register_module("dropout", torch::nn::Dropout(c.hidden_dropout_prob));
}

torch::Tensor GPT2MLPImpl::forward(const torch::Tensor& hidden) {
  return dropout(c_proj(hf_activation(activation, c_fc(hidden))));
}

GPT2BlockImpl::GPT2BlockImpl(const ModelConfig& c, int layer_index) {
  ln_1 = register_module("ln_1", make_layer_norm(c));
  attn = register_module("attn", GPT2Attention(c, layer_index));
  ln_2 = register_module("ln_2", make_layer_norm(c));
  mlp = register_module("mlp", GPT2MLP(c));
}

torch::Tensor GPT2BlockImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask) {
  const auto attended = hidden + attn(ln_1(hidden), additive_mask);
  return attended + mlp(ln_2(attended));
}

GPT2LMHeadModelImpl::GPT2LMHeadModelImpl(const ModelConfig& c) : config(c) {
  auto transformer = container(*this, "transformer");
  wte = transformer->register_module("wte", torch::nn::Embedding(c.vocab_size, c.hidden_size));
  wpe = transformer->register_module("wpe", torch::nn::Embedding(c.max_position_embeddings, c.hidden_size));
  drop = transformer->register_module("drop", torch::nn::Dropout(c.hf_double("embd_pdrop", 0.1)));
  auto blocks = container(*transformer, "h");
  for (int i = 0; i < c.num_hidden_layers; ++i) h.push_back(blocks->register_module(std::to_string(i), GPT2Block(c, i)));
  ln_f = transformer->register_module("ln_f", make_layer_norm(c));
  init_gpt2_weights(*this);
}

torch::Tensor GPT2LMHeadModelImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) {
  const auto positions = torch::arange(input_ids.size(1), input_ids.options()).unsqueeze(0);
  auto hidden = drop(wte(input_ids) + wpe(positions));
  const auto mask = causal_additive_mask(input_ids, attention_mask);
  for (size_t i = 0; i < h.size(); ++i) hidden = tap_activation("transformer.h", i, h[i](hidden, mask));
  return torch::matmul(ln_f(hidden), wte->weight.t());  // tied lm_head, no bias
}

torch::Tensor GPT2LMHeadModelImpl::loss(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                        const torch::Tensor& labels) {
  using torch::indexing::Slice;
  const auto logits = forward(input_ids, attention_mask);
  return token_cross_entropy(logits.index({Slice(), Slice(0, -1)}), labels.index({Slice(), Slice(1)}));
}

void init_gpt2_weights(GPT2LMHeadModelImpl& model) {
  torch::NoGradGuard no_grad;
  const double std = model.config.initializer_range;
  model.wte->weight.normal_(0.0, std);
  model.wpe->weight.normal_(0.0, std);
  for (auto& m : model.modules(/*include_self=*/false)) {
    if (auto* conv = m->as<Conv1D>()) {
      conv->weight.normal_(0.0, std);
      conv->bias.zero_();
    } else if (auto* ln = m->as<torch::nn::LayerNorm>()) {
      ln->weight.fill_(1.0);
      ln->bias.zero_();
    }
  }
  const double residual_std = std / std::sqrt(2.0 * model.config.num_hidden_layers);
  for (auto& block : model.h) {
    block->attn->c_proj->weight.normal_(0.0, residual_std);
    block->mlp->c_proj->weight.normal_(0.0, residual_std);
  }
}

}  // namespace tune
