// CUDA-graph capture of the whole step, as PyTorch's "whole network capture" recipe: static inputs, warm-up
// on a side stream, capture on it, then copy-in + replay. Every tensor the step touches keeps its address.
#include "compile/cuda_graph_step.h"

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include <chrono>
#include <cstdio>

namespace tune {
namespace {

// Eager steps before capture: cuBLAS/cuDNN handles, workspaces and the allocator's blocks must exist first.
constexpr int kWarmupSteps = 3;

StepOptions with_fused_optimizer(StepOptions options) {
  check_optimizer_name(options.optimizer);  // an unknown name is still the user's error, not silently "fused"
  options.optimizer = "fused";
  return options;
}

std::vector<torch::Tensor> clone_all(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> out;
  for (const auto& t : tensors) out.push_back(t.detach().clone());
  return out;
}

}  // namespace

CudaGraphStep::CudaGraphStep(TrainableModel model, const StepOptions& options)
    : model_(std::move(model)), optimizer_substituted_(options.optimizer != "fused"),
      update_(model_.module->parameters(), with_fused_optimizer(options), /*set_to_none=*/false),
      autocast_(autocast_dtype(options.precision)) {}

CudaGraphStep::~CudaGraphStep() = default;

torch::Tensor CudaGraphStep::run_static_step() {
  return update_.run([&] {
    AutocastGuard autocast(c10::DeviceType::CUDA, autocast_, /*cache_enabled=*/false);  // no cache under capture
    return model_.loss(static_batch_);
  });
}

// Warm-up and capture on a side stream (capture is illegal on the default stream), then put parameters and
// optimizer state back as they were: capture itself runs nothing, but the warm-up steps did update them.
void CudaGraphStep::capture() {
  torch::NoGradGuard outside_the_step;  // snapshot and restore are not part of any graph
  const auto live = update_.state_tensors();
  const auto snapshot = clone_all(live);
  torch::cuda::synchronize();
  const auto side = c10::cuda::getStreamFromPool();
  {
    c10::cuda::CUDAStreamGuard on_side(side);
    at::AutoGradMode grad(true);
    for (int i = 0; i < kWarmupSteps; ++i) run_static_step();
    side.synchronize();
    graph_.reset();  // frees the previous capture's memory pool before the new one
    graph_ = std::make_unique<at::cuda::CUDAGraph>();
    graph_->capture_begin();
    static_loss_ = run_static_step();
    graph_->capture_end();
  }
  torch::cuda::synchronize();
  for (size_t i = 0; i < live.size(); ++i) live[i].copy_(snapshot[i]);
}

CompileReport CudaGraphStep::prepare(const Batch& example) {
  const auto device = model_.module->parameters().front().device();
  if (!device.is_cuda()) throw CompileError("capture", "cuda-graph needs a CUDA device; model is on " + device.str());
  const auto start = std::chrono::steady_clock::now();
  static_batch_ = example.with_tensors(clone_all(example.to(device).tensors()));
  try {
    capture();
  } catch (const std::exception& e) {
    graph_.reset();
    throw CompileError("capture", e.what());
  }
  if (!captured_shape_.empty()) ++recaptures_;
  captured_shape_ = example.input_ids.sizes().vec();
  CompileReport report;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.info = "graph captured in " + std::to_string(report.seconds) + " s after " + std::to_string(kWarmupSteps) +
                " warm-up steps" + (optimizer_substituted_ ? "; optimizer fused (capturable) instead of adamw" : "") +
                (recaptures_ ? "; recapture #" + std::to_string(recaptures_) : "");
  return report;
}

torch::Tensor CudaGraphStep::step(const Batch& batch) {
  if (!graph_ || batch.input_ids.sizes().vec() != captured_shape_) {
    if (graph_)
      std::fprintf(stderr, "tune: cuda-graph recaptures: new batch shape [%lld, %lld]\n",
                     static_cast<long long>(batch.input_ids.size(0)), static_cast<long long>(batch.input_ids.size(1)));
    prepare(batch);
  }
  const auto inputs = static_batch_.tensors(), values = batch.tensors();
  TORCH_CHECK(inputs.size() == values.size(), "cuda-graph: batch layout differs from the captured one");
  for (size_t i = 0; i < inputs.size(); ++i) inputs[i].copy_(values[i], /*non_blocking=*/true);
  graph_->replay();
  return static_loss_.clone();  // the static loss is overwritten by the next replay
}

}  // namespace tune
