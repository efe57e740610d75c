// The fused AdamW: state allocated up front on the parameters' device; each step increments the step
// tensors on the device (the kernel itself does not) and calls at::_fused_adamw_ once per group.
#include "compile/fused_adamw.h"

namespace tune {
namespace {

// Moments and the step count of one parameter, all tensors on its device.
struct FusedAdamWState : torch::optim::OptimizerParamState {
  torch::Tensor exp_avg, exp_avg_sq, step;
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<FusedAdamWState>(*this); }
};

}  // namespace

FusedAdamW::FusedAdamW(std::vector<torch::Tensor> parameters, const torch::optim::AdamWOptions& options,
                       bool rate_in_tensor)
    : Optimizer(std::move(parameters), std::make_unique<torch::optim::AdamWOptions>(options)) {
  TORCH_CHECK(!options.amsgrad(), "FusedAdamW: amsgrad is not supported");
  const auto& first = param_groups().at(0).params();
  if (rate_in_tensor && !first.empty())
    rate_ = torch::full({}, options.lr(), first.front().options().dtype(torch::kFloat32));
  // Allocated now rather than on the first step, so a warm-up or a graph capture finds every tensor in place.
  // A zero step count and zero moments are exactly AdamW's lazily initialised state.
  for (const auto& p : param_groups().at(0).params()) {
    auto state = std::make_unique<FusedAdamWState>();
    state->exp_avg = torch::zeros_like(p, at::MemoryFormat::Preserve);
    state->exp_avg_sq = torch::zeros_like(p, at::MemoryFormat::Preserve);
    state->step = torch::zeros({}, p.options().dtype(torch::kFloat32));
    this->state()[p.unsafeGetTensorImpl()] = std::move(state);
  }
}

torch::Tensor FusedAdamW::step(LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups()) update_group(group, {});
  return loss;
}

void FusedAdamW::step_unless_found_inf(const torch::Tensor& found_inf) {
  TORCH_CHECK(found_inf.defined() && found_inf.numel() == 1, "step_unless_found_inf: one-element found_inf expected");
  for (auto& group : param_groups()) update_group(group, found_inf);
}

void FusedAdamW::update_group(torch::optim::OptimizerParamGroup& group, const torch::Tensor& found_inf) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps;
  for (const auto& p : group.params()) {
    if (!p.grad().defined()) continue;  // as torch::optim::AdamW: a parameter without a gradient is not stepped
    auto& s = static_cast<FusedAdamWState&>(*state().at(p.unsafeGetTensorImpl()));
    params.push_back(p);
    grads.push_back(p.grad());
    exp_avgs.push_back(s.exp_avg);
    exp_avg_sqs.push_back(s.exp_avg_sq);
    steps.push_back(s.step);
  }
  if (params.empty()) return;
  const auto& o = static_cast<const torch::optim::AdamWOptions&>(group.options());
  // at::_fused_adamw_ reads the step counts but does not advance them (PyTorch's adam.py adds 1 first too).
  at::_foreach_add_(steps, 1);
  std::optional<torch::Tensor> skip;
  if (found_inf.defined()) skip = found_inf;
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  if (rate_.defined())
    at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, /*max_exp_avg_sqs=*/{}, steps, rate_, beta1, beta2,
                      o.weight_decay(), o.eps(), /*amsgrad=*/false, /*maximize=*/false, /*grad_scale=*/std::nullopt, skip);
  else
    at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, /*max_exp_avg_sqs=*/{}, steps, o.lr(), beta1, beta2,
                      o.weight_decay(), o.eps(), /*amsgrad=*/false, /*maximize=*/false, /*grad_scale=*/std::nullopt, skip);
  // The kernel skips the update itself on overflow; the step count must not advance either.
  if (found_inf.defined()) at::_foreach_sub_(steps, std::vector<torch::Tensor>(steps.size(), found_inf.reshape({})));
}

void FusedAdamW::set_learning_rate(double learning_rate) {
  if (!rate_.defined()) throw std::logic_error("FusedAdamW: a scheduled rate needs rate_in_tensor");
  rate_.fill_(learning_rate);  // on the device's stream, before the next (replayed) update reads it
  for (auto& group : param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(learning_rate);
}

torch::Tensor FusedAdamW::step_count(const torch::Tensor& parameter) const {
  return static_cast<const FusedAdamWState&>(*state().at(parameter.unsafeGetTensorImpl())).step;
}

std::vector<torch::Tensor> FusedAdamW::state_tensors() const {
  std::vector<torch::Tensor> out;
  for (const auto& group : param_groups())
    for (const auto& p : group.params()) {
      const auto& s = static_cast<const FusedAdamWState&>(*state().at(p.unsafeGetTensorImpl()));
      out.insert(out.end(), {s.exp_avg, s.exp_avg_sq, s.step});
    }
  return out;
}

}  // namespace tune
