// T5 for span corruption / seq2seq (Hugging Face T5ForConditionalGeneration) in the libtorch C++ frontend.
// Plain containers reproduce HF's module paths (encoder.block.N.layer.M....); the math follows HF's eager path.
#include "models/t5.h"
#include "models/activation_tap.h"
#include "models/hf_losses.h"

#include <cmath>
#include <limits>

#include "models/hf_activation.h"
#include "models/hf_modules.h"

namespace tune {
namespace {

torch::nn::Linear linear(int64_t in, int64_t out) { return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false)); }

// 0 where allowed, the float minimum elsewhere (HF's eager masks), as float.
torch::Tensor additive(const torch::Tensor& allowed) {
  return (1.0 - allowed.to(torch::kFloat)) * std::numeric_limits<float>::lowest();
}

// Padding mask over keys [batch, 1, 1, key]; undefined when there is no mask.
torch::Tensor padding_mask(const torch::Tensor& attention_mask) {
  if (!attention_mask.defined()) return {};
  return additive(attention_mask.to(torch::kBool).unsqueeze(1).unsqueeze(2));
}

// a + b, or whichever is defined (undefined when neither is).
torch::Tensor sum_of_defined(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.defined()) return b;
  return b.defined() ? a + b : a;
}

// HF's _relative_position_bucket, op for op (same float rounding at bucket boundaries).
torch::Tensor relative_position_bucket(torch::Tensor relative_position, bool bidirectional, int64_t num_buckets,
                                       int64_t max_distance) {
  auto buckets = torch::zeros_like(relative_position);
  if (bidirectional) {
    num_buckets /= 2;
    buckets = buckets + (relative_position > 0).to(torch::kLong) * num_buckets;
    relative_position = relative_position.abs();
  } else {
    relative_position = -torch::min(relative_position, torch::zeros_like(relative_position));
  }
  const int64_t max_exact = num_buckets / 2;
  const auto is_small = relative_position < max_exact;
  auto if_large = max_exact + (torch::log(relative_position.to(torch::kFloat) / static_cast<double>(max_exact)) /
                               std::log(static_cast<double>(max_distance) / max_exact) *
                               static_cast<double>(num_buckets - max_exact))
                                  .to(torch::kLong);
  if_large = torch::min(if_large, torch::full_like(if_large, num_buckets - 1));
  return buckets + torch::where(is_small, relative_position, if_large);
}

}  // namespace

T5Dims::T5Dims(const ModelConfig& c)
    : d_model(c.hidden_size), d_kv(c.hf_int("d_kv", 64)), d_ff(c.intermediate_size), num_heads(c.num_attention_heads),
      num_layers(c.num_hidden_layers), num_decoder_layers(c.hf_int("num_decoder_layers", c.num_hidden_layers)),
      num_buckets(c.hf_int("relative_attention_num_buckets", 32)),
      max_distance(c.hf_int("relative_attention_max_distance", 128)), eps(c.hf_double("layer_norm_epsilon", 1e-6)),
      dropout(c.hf_double("dropout_rate", 0.1)), factor(c.hf_double("initializer_factor", 1.0)),
      scale_decoder_outputs(c.hf_bool("tie_word_embeddings", true)) {
  const std::string proj = c.hf_string("feed_forward_proj", "relu");
  const auto dash = proj.find('-');
  gated = dash != std::string::npos && proj.substr(0, dash) == "gated";
  if (dash != std::string::npos && !gated)
    throw std::invalid_argument(c.source_path + ": key 'config.feed_forward_proj': expected 'ACT' or 'gated-ACT', got '" +
                                proj + "'");
  activation = proj == "gated-gelu" ? "gelu_new" : proj.substr(dash == std::string::npos ? 0 : dash + 1);
  check_hf_activation(activation, c.source_path);
}

T5LayerNormImpl::T5LayerNormImpl(int64_t size, double eps_) : eps(eps_) {
  weight = register_parameter("weight", torch::ones({size}));
}

torch::Tensor T5LayerNormImpl::forward(const torch::Tensor& x) {
  const auto variance = x.to(torch::kFloat).pow(2).mean(-1, /*keepdim=*/true);
  return weight * (x * torch::rsqrt(variance + eps));
}

T5AttentionImpl::T5AttentionImpl(const T5Dims& d, bool has_relative_attention_bias, bool bidirectional_)
    : num_heads(d.num_heads), d_kv(d.d_kv), num_buckets(d.num_buckets), max_distance(d.max_distance),
      bidirectional(bidirectional_) {
  const int64_t inner = d.num_heads * d.d_kv;
  q = register_module("q", linear(d.d_model, inner));
  k = register_module("k", linear(d.d_model, inner));
  v = register_module("v", linear(d.d_model, inner));
  o = register_module("o", linear(inner, d.d_model));
  if (has_relative_attention_bias)
    relative_attention_bias = register_module("relative_attention_bias", torch::nn::Embedding(d.num_buckets, d.num_heads));
  dropout = register_module("dropout", torch::nn::Dropout(d.dropout));
}

torch::Tensor T5AttentionImpl::compute_bias(int64_t query_length, int64_t key_length, const torch::Device& device) {
  const auto opts = torch::TensorOptions().dtype(torch::kLong).device(device);
  const auto relative = torch::arange(key_length, opts).unsqueeze(0) - torch::arange(query_length, opts).unsqueeze(1);
  const auto buckets = relative_position_bucket(relative, bidirectional, num_buckets, max_distance);
  return relative_attention_bias(buckets).permute({2, 0, 1}).unsqueeze(0);  // [1, heads, q, k]
}

torch::Tensor T5AttentionImpl::forward(const torch::Tensor& hidden, const torch::Tensor& keys,
                                       const torch::Tensor& position_bias, const torch::Tensor& additive_mask) {
  const int64_t batch = hidden.size(0);
  auto heads = [&](const torch::Tensor& t) { return t.view({batch, -1, num_heads, d_kv}).transpose(1, 2); };
  const auto qh = heads(q(hidden)), kh = heads(k(keys)), vh = heads(v(keys));
  torch::Tensor context;
  if (attention_kernel == AttentionKernel::sdpa) {
    // The learned position bias joins the mask as attn_mask; scale 1: T5 does not scale, the init folds it into q.
    context = fused_attention(qh, kh, vh, sum_of_defined(position_bias, additive_mask), /*scale=*/1.0, *dropout);
  } else {
    auto scores = torch::matmul(qh, kh.transpose(2, 3));  // T5 does not scale: the init folds it into q
    if (position_bias.defined()) scores = scores + position_bias;
    if (additive_mask.defined()) scores = scores + additive_mask;
    context = torch::matmul(dropout(torch::softmax(scores, -1)), vh);
  }
  return o(context.transpose(1, 2).reshape({batch, -1, num_heads * d_kv}));
}

T5DenseImpl::T5DenseImpl(const T5Dims& d) : gated(d.gated), activation(d.activation) {
  if (gated) {
    wi_0 = register_module("wi_0", linear(d.d_model, d.d_ff));
    wi_1 = register_module("wi_1", linear(d.d_model, d.d_ff));
  } else {
    wi = register_module("wi", linear(d.d_model, d.d_ff));
  }
  wo = register_module("wo", linear(d.d_ff, d.d_model));
  dropout = register_module("dropout", torch::nn::Dropout(d.dropout));
}

torch::Tensor T5DenseImpl::forward(const torch::Tensor& x) {
  const auto inner = gated ? hf_activation(activation, wi_0(x)) * wi_1(x) : hf_activation(activation, wi(x));
  return wo(dropout(inner));
}

T5BlockImpl::T5BlockImpl(const T5Dims& d, bool is_decoder, bool has_relative_attention_bias) {
  auto layer = container(*this, "layer");
  auto self_layer = container(*layer, "0");
  self_attention = self_layer->register_module("SelfAttention", T5Attention(d, has_relative_attention_bias, !is_decoder));
  self_norm = self_layer->register_module("layer_norm", T5LayerNorm(d.d_model, d.eps));
  if (is_decoder) {
    auto cross_layer = container(*layer, "1");
    cross_attention = cross_layer->register_module("EncDecAttention", T5Attention(d, false, true));
    cross_norm = cross_layer->register_module("layer_norm", T5LayerNorm(d.d_model, d.eps));
  }
  auto ff_layer = container(*layer, is_decoder ? "2" : "1");
  ff = ff_layer->register_module("DenseReluDense", T5Dense(d));
  ff_norm = ff_layer->register_module("layer_norm", T5LayerNorm(d.d_model, d.eps));
  dropout = register_module("dropout", torch::nn::Dropout(d.dropout));
}

torch::Tensor T5BlockImpl::forward(const torch::Tensor& hidden, const torch::Tensor& self_bias,
                                   const torch::Tensor& self_mask, const torch::Tensor& encoder_hidden,
                                   const torch::Tensor& cross_mask) {
  const auto normed = self_norm(hidden);
  auto h = hidden + dropout(self_attention(normed, normed, self_bias, self_mask));
  if (cross_attention) h = h + dropout(cross_attention(cross_norm(h), encoder_hidden, torch::Tensor(), cross_mask));
  return h + dropout(ff(ff_norm(h)));
}

T5StackImpl::T5StackImpl(const T5Dims& d, bool is_decoder_) : is_decoder(is_decoder_) {
  auto block = container(*this, "block");
  const int64_t layers = is_decoder ? d.num_decoder_layers : d.num_layers;
  for (int64_t i = 0; i < layers; ++i)
    blocks.push_back(block->register_module(std::to_string(i), T5Block(d, is_decoder, i == 0)));
  final_layer_norm = register_module("final_layer_norm", T5LayerNorm(d.d_model, d.eps));
  dropout = register_module("dropout", torch::nn::Dropout(d.dropout));
}

torch::Tensor T5StackImpl::forward(const torch::Tensor& embeddings, const torch::Tensor& self_mask,
                                   const torch::Tensor& encoder_hidden, const torch::Tensor& cross_mask) {
  const int64_t seq = embeddings.size(1);
  // Block 0 owns the relative position bias; every later block reuses it (HF passes position_bias on).
  const auto bias = blocks.front()->self_attention->compute_bias(seq, seq, embeddings.device());
  auto h = dropout(embeddings);
  const char* where = is_decoder ? "decoder.block" : "encoder.block";
  for (size_t i = 0; i < blocks.size(); ++i) h = tap_activation(where, i, blocks[i](h, bias, self_mask, encoder_hidden, cross_mask));
  return dropout(final_layer_norm(h));
}

T5ForConditionalGenerationImpl::T5ForConditionalGenerationImpl(const ModelConfig& c) : config(c), dims(c) {
  shared = register_module("shared", torch::nn::Embedding(c.vocab_size, dims.d_model));
  encoder = register_module("encoder", T5Stack(dims, /*is_decoder=*/false));
  decoder = register_module("decoder", T5Stack(dims, /*is_decoder=*/true));
  init_t5_weights(*this);
}

torch::Tensor T5ForConditionalGenerationImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                                      const torch::Tensor& decoder_input_ids) {
  const auto encoder_mask = padding_mask(attention_mask);
  const auto encoded = encoder(shared(input_ids), encoder_mask, torch::Tensor(), torch::Tensor());
  const int64_t target = decoder_input_ids.size(1);
  // HF's decoder gets no decoder_attention_mask here: causal only.
  const auto causal = additive(torch::ones({target, target}, input_ids.options().dtype(torch::kBool)).tril())
                          .view({1, 1, target, target});
  auto out = decoder(shared(decoder_input_ids), causal, encoded, encoder_mask);
  if (dims.scale_decoder_outputs) out = out * std::pow(static_cast<double>(dims.d_model), -0.5);
  return torch::matmul(out, shared->weight.t());  // tied lm_head
}

torch::Tensor T5ForConditionalGenerationImpl::shift_right(const torch::Tensor& labels) const {
  using torch::indexing::Slice;
  const int64_t start = config.hf_int("decoder_start_token_id", config.pad_token_id);
  auto shifted = torch::full_like(labels, start);
  shifted.index_put_({Slice(), Slice(1)}, labels.index({Slice(), Slice(0, -1)}));
  return shifted.masked_fill(shifted == -100, config.pad_token_id);
}

torch::Tensor T5ForConditionalGenerationImpl::loss(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                                   const torch::Tensor& decoder_input_ids, const torch::Tensor& labels) {
  const auto decoder_ids = decoder_input_ids.defined() ? decoder_input_ids : shift_right(labels);
  const auto logits = forward(input_ids, attention_mask, decoder_ids);
  return token_cross_entropy(logits, labels);
}

void init_t5_weights(T5ForConditionalGenerationImpl& model) {
  torch::NoGradGuard no_grad;
  const T5Dims& d = model.dims;
  const double f = d.factor;
  model.shared->weight.normal_(0.0, f);
  for (auto& m : model.modules(/*include_self=*/false)) {
    if (auto* norm = m->as<T5LayerNorm>()) {
      norm->weight.fill_(f);
    } else if (auto* attn = m->as<T5Attention>()) {
      attn->q->weight.normal_(0.0, f * std::pow(static_cast<double>(d.d_model * d.d_kv), -0.5));
      attn->k->weight.normal_(0.0, f * std::pow(static_cast<double>(d.d_model), -0.5));
      attn->v->weight.normal_(0.0, f * std::pow(static_cast<double>(d.d_model), -0.5));
      attn->o->weight.normal_(0.0, f * std::pow(static_cast<double>(d.num_heads * d.d_kv), -0.5));
      if (attn->relative_attention_bias)
        attn->relative_attention_bias->weight.normal_(0.0, f * std::pow(static_cast<double>(d.d_model), -0.5));
    } else if (auto* dense = m->as<T5Dense>()) {
      for (auto* wi : {&dense->wi, &dense->wi_0, &dense->wi_1})
        if (*wi) (*wi)->weight.normal_(0.0, f * std::pow(static_cast<double>(d.d_model), -0.5));
      dense->wo->weight.normal_(0.0, f * std::pow(static_cast<double>(d.d_ff), -0.5));
    }
  }
}

}  // namespace tune
