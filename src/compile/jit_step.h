// The TorchScript backend: the training forward (model + loss) traced from C++ into a graph whose
// inputs are the batch and every parameter, run by the graph executor with autograd.
#pragma once
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include "compile/autocast_guard.h"
#include "compile/optimizer_step.h"
#include "compile/train_step.h"

namespace tune {

class JitStep : public TrainStep {
 public:
  // Throws std::invalid_argument for an unknown options.precision or options.optimizer.
  JitStep(TrainableModel model, const StepOptions& options);
  static constexpr const char* kName = "jit";  // its entry in trial/backend_registry.cpp
  std::string backend() const override { return kName; }
  // Traces the loss for this batch shape (under autocast for bf16/fp16, so the casts are in the graph).
  // A later batch of another shape is a recompile.
  CompileReport prepare(const Batch& example) override;
  torch::Tensor step(const Batch& batch) override;
  void set_learning_rate(double learning_rate) override { update_.set_learning_rate(learning_rate); }
  void set_gradient_sync(std::function<void()> sync) override { update_.set_gradient_sync(std::move(sync)); }
  std::string runtime_info() const override;
  // The traced loss without an optimizer step (tests compare its gradients with eager's).
  torch::Tensor traced_loss(const Batch& batch);
  int recompiles() const { return recompiles_; }

 private:
  TrainableModel model_;
  std::vector<torch::Tensor> parameters_;
  OptimizerStep update_;
  std::optional<at::ScalarType> autocast_;
  std::shared_ptr<torch::jit::Graph> graph_;
  std::unique_ptr<torch::jit::GraphExecutor> executor_;
  std::vector<int64_t> traced_shape_;
  int recompiles_ = 0;
};

}  // namespace tune
