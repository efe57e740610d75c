// The native baseline: the training step as a plain libtorch user writes it.
// Nothing to compile; every op dispatches eagerly (under autocast for bf16/fp16).
#pragma once
#include "compile/autocast_guard.h"
#include "compile/optimizer_step.h"
#include "compile/train_step.h"

namespace tune {

class EagerStep : public TrainStep {
 public:
  // Throws std::invalid_argument for an unknown options.precision or options.optimizer.
  EagerStep(TrainableModel model, const StepOptions& options);
  static constexpr const char* kName = "eager";  // its entry in trial/backend_registry.cpp
  std::string backend() const override { return kName; }
  CompileReport prepare(const Batch& example) override;
  torch::Tensor step(const Batch& batch) override;
  void set_learning_rate(double learning_rate) override { update_.set_learning_rate(learning_rate); }
  void set_gradient_sync(std::function<void()> sync) override { update_.set_gradient_sync(std::move(sync)); }

 private:
  TrainableModel model_;
  OptimizerStep update_;
  std::optional<at::ScalarType> autocast_;
};

}  // namespace tune
