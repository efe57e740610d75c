// The attention-kernel knob shared by every family: HF's eager math (matmul, softmax) or torch's fused
// scaled_dot_product_attention; the choice, its parsing, and the one fused call the families share.
#pragma once
#include <torch/torch.h>

#include <string>

namespace tune {

enum class AttentionKernel { math, sdpa };

// "math" or "sdpa" (TrialSpec::attention). Throws std::invalid_argument quoting any other name.
AttentionKernel parse_attention_kernel(const std::string& name);

// Mixed into each module that computes attention, so set_attention_kernel finds it without knowing the family.
struct AttentionKernelChoice {
  AttentionKernel attention_kernel = AttentionKernel::math;
};

// Sets the kernel on every attention module of `model`; aborts if it has none (a family lacking the mixin).
void set_attention_kernel(torch::nn::Module& model, AttentionKernel kernel);

// softmax(q k^T * scale + additive_mask) v by torch::scaled_dot_product_attention, on heads
// [batch, heads, seq, head_dim]; additive_mask broadcasts to [batch, heads, q, k] or is undefined.
// Dropout on the probabilities as `dropout` has it: its p while training, none in eval.
torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const torch::Tensor& additive_mask, double scale, const torch::nn::DropoutImpl& dropout);

}  // namespace tune
