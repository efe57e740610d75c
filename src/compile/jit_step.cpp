// The TorchScript backend: trace model+loss with parameters as graph inputs, so the graph executor's
// autograd sends gradients to the original parameters and the shared OptimizerStep updates them.
// Mixed precision: autocast is on while tracing (its casts become graph nodes) and off while running.
#include "compile/jit_step.h"

#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/passes/autocast.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <sstream>

namespace tune {
namespace {

// Counts fusion and differentiable subgraphs, recursing into subgraph attributes.
void count_groups(const torch::jit::Block* block, int& fusion_groups, int& diff_graphs, int& nodes) {
  for (const auto* node : block->nodes()) {
    ++nodes;
    const std::string kind = node->kind().toQualString();
    if (kind == "prim::DifferentiableGraph") ++diff_graphs;
    if (kind.find("Fusion") != std::string::npos || kind.find("TensorExprGroup") != std::string::npos) ++fusion_groups;
    if (node->hasAttribute(torch::jit::attr::Subgraph))
      count_groups(node->g(torch::jit::attr::Subgraph)->block(), fusion_groups, diff_graphs, nodes);
    for (const auto* sub : node->blocks()) count_groups(sub, fusion_groups, diff_graphs, nodes);
  }
}

}  // namespace

JitStep::JitStep(TrainableModel model, const StepOptions& options)
    : model_(std::move(model)), parameters_(model_.module->parameters()), update_(parameters_, options),
      autocast_(autocast_dtype(options.precision)) {
  // The traced graph already holds autocast's casts and runs with autocast off. The executor's own autocast
  // pass (a process-wide switch, on by default) would add casts again wherever eager autocast happened to be
  // on when it optimizes; PyTorch's docs say to turn it off for graphs traced under autocast.
  if (autocast_) torch::jit::setAutocastMode(false);
}

CompileReport JitStep::prepare(const Batch& example) {
  const auto start = std::chrono::steady_clock::now();
  torch::jit::Stack inputs;
  for (const auto& t : example.tensors()) inputs.emplace_back(t);
  for (const auto& p : parameters_) inputs.emplace_back(p);
  auto loss_fn = model_.loss;
  const size_t batch_inputs = example.tensors().size();
  auto traced_fn = [loss_fn, example, batch_inputs](torch::jit::Stack stack) -> torch::jit::Stack {
    std::vector<torch::Tensor> values;
    for (size_t i = 0; i < batch_inputs; ++i) values.push_back(stack[i].toTensor());
    return {loss_fn(example.with_tensors(values))};
  };
  try {
    AutocastGuard autocast(parameter_device_type(*model_.module), autocast_);
    auto traced = torch::jit::tracer::trace(inputs, traced_fn, [](const torch::autograd::Variable&) { return ""; },
                                            /*strict=*/false);
    graph_ = traced.first->graph;
    executor_ = std::make_unique<torch::jit::GraphExecutor>(graph_, "tune_train_loss");
  } catch (const std::exception& e) {
    throw CompileError("trace", e.what());
  }
  if (!traced_shape_.empty()) ++recompiles_;
  traced_shape_ = example.input_ids.sizes().vec();
  CompileReport report;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int fusion = 0, diff = 0, nodes = 0;
  count_groups(graph_->block(), fusion, diff, nodes);
  report.info = "traced graph: " + std::to_string(nodes) + " nodes, " + std::to_string(graph_->inputs().size()) +
                " inputs" + (recompiles_ ? ", recompile #" + std::to_string(recompiles_) : "");
  return report;
}

torch::Tensor JitStep::traced_loss(const Batch& batch) {
  if (!executor_ || batch.input_ids.sizes().vec() != traced_shape_) {  // (decoder length follows seq_len)
    std::fprintf(stderr, "tune: jit recompiles: new batch shape [%lld, %lld]\n",
                 static_cast<long long>(batch.input_ids.size(0)), static_cast<long long>(batch.input_ids.size(1)));
    prepare(batch);
  }
  torch::jit::Stack stack;
  for (const auto& t : batch.tensors()) stack.emplace_back(t);
  for (const auto& p : parameters_) stack.emplace_back(p);
  // Under autocast the graph mixes dtypes (e.g. a bf16 matmul output meeting an fp32 tensor promotes to fp32).
  // JIT autodiff's symbolic gradients do not cast a gradient back to its input's dtype as eager autograd's
  // engine does, so the optimized plan's backward fails ("expected m1 and m2 to have the same dtype", seen
  // on bert-tiny). The unoptimized plan leaves every op's gradient to eager autograd.
  torch::jit::GraphOptimizerEnabledGuard optimize(!autocast_.has_value());
  executor_->run(stack);
  return stack.at(0).toTensor();
}

torch::Tensor JitStep::step(const Batch& batch) {
  return update_.run([&] { return traced_loss(batch); });
}

std::string JitStep::runtime_info() const {
  const auto optimized = torch::jit::lastExecutedOptimizedGraph();
  if (!optimized) return "jit: no optimized graph yet";
  int fusion = 0, diff = 0, nodes = 0;
  count_groups(optimized->block(), fusion, diff, nodes);
  std::ostringstream out;
  if (autocast_) out << "autocast: graph executor optimizations off (JIT autodiff cannot mix dtypes); ";
  out << "optimized graph: " << nodes << " nodes, " << fusion << " fusion groups, " << diff
      << " differentiable graphs; tensorexpr fuser " << (torch::jit::tensorExprFuserEnabled() ? "on" : "off")
      << ", recompiles " << recompiles_;
  return out.str();
}

}  // namespace tune
