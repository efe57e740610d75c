// The attention-kernel knob shared by every family: parsing the name, setting it on a built model,
// and the fused scaled_dot_product_attention call.
#include "models/attention.h"

#include <stdexcept>

namespace tune {

AttentionKernel parse_attention_kernel(const std::string& name) {
  if (name == "math") return AttentionKernel::math;
  if (name == "sdpa") return AttentionKernel::sdpa;
  throw std::invalid_argument("attention '" + name + "': expected math or sdpa");
}

void set_attention_kernel(torch::nn::Module& model, AttentionKernel kernel) {
  int found = 0;
  for (const auto& m : model.modules(/*include_self=*/true)) {
    if (auto* choice = dynamic_cast<AttentionKernelChoice*>(m.get())) {
      choice->attention_kernel = kernel;
      ++found;
    }
  }
  TORCH_CHECK(found > 0, "set_attention_kernel: model ", model.name(), " has no attention module taking the choice");
}

torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const torch::Tensor& additive_mask, double scale, const torch::nn::DropoutImpl& dropout) {
  const double dropout_p = dropout.is_training() ? dropout.options.p() : 0.0;
  std::optional<torch::Tensor> mask;
  if (additive_mask.defined()) mask = additive_mask;
  // The padding (and GPT-2's causal) mask travels as attn_mask, so is_causal stays false: sdpa refuses both.
  return at::scaled_dot_product_attention(q, k, v, mask, dropout_p, /*is_causal=*/false, scale);
}

}  // namespace tune
