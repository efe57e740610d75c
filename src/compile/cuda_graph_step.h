// The CUDA-graph backend: one whole training step (zero grads, forward, backward, fused AdamW with its
// device-side step count) captured into a CUDA graph once, then replayed per batch with no launch overhead.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "compile/autocast_guard.h"
#include "compile/optimizer_step.h"
#include "compile/train_step.h"

namespace at::cuda {
struct CUDAGraph;
}

namespace tune {

class CudaGraphStep : public TrainStep {
 public:
  // Always uses the fused optimizer (stock AdamW keeps its step count on the host, so a replayed graph would
  // repeat one bias correction forever). Throws std::invalid_argument for an unknown precision or optimizer.
  CudaGraphStep(TrainableModel model, const StepOptions& options);
  ~CudaGraphStep() override;
  static constexpr const char* kName = "cuda-graph";  // its entry in trial/backend_registry.cpp
  std::string backend() const override { return kName; }
  // Warms up and captures the step for batches shaped like `example`; parameters and optimizer state are
  // restored afterwards, so warm-up steps do not count. CompileError("capture") off CUDA or if capture fails.
  CompileReport prepare(const Batch& example) override;
  // Copies `batch` into the captured inputs and replays; a new batch shape re-captures.
  torch::Tensor step(const Batch& batch) override;
  void set_learning_rate(double learning_rate) override { update_.set_learning_rate(learning_rate); }
  int recaptures() const { return recaptures_; }

 private:
  torch::Tensor run_static_step();
  void capture();

  TrainableModel model_;
  bool optimizer_substituted_;
  OptimizerStep update_;
  std::optional<at::ScalarType> autocast_;
  Batch static_batch_;
  torch::Tensor static_loss_;
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
  std::vector<int64_t> captured_shape_;
  int recaptures_ = 0;
};

}  // namespace tune
