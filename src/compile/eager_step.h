// The native baseline: the training step as a plain libtorch user writes it.
// Nothing to compile; every op dispatches eagerly.
#pragma once
#include "compile/train_step.h"

namespace tune {

class EagerStep : public TrainStep {
 public:
  EagerStep(TrainableModel model, double learning_rate);
  std::string backend() const override { return "eager"; }
  CompileReport prepare(const Batch& example) override;
  torch::Tensor step(const Batch& batch) override;

 private:
  TrainableModel model_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

}  // namespace tune
