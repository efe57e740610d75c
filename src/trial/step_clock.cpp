// Step clocks. The CUDA clock records an event per boundary so the GPU's own time between steps is
// measured (launch gaps included), and the host waits only at the end of a block.
#include "trial/step_clock.h"

#include <ATen/cuda/CUDAEvent.h>
#include <torch/torch.h>

#include <chrono>

namespace tune {
namespace {

class WallClock : public StepClock {
 public:
  void mark() override { marks_.push_back(std::chrono::steady_clock::now()); }
  std::vector<double> collect() override {
    std::vector<double> out;
    for (size_t i = 1; i < marks_.size(); ++i)
      out.push_back(std::chrono::duration<double>(marks_[i] - marks_[i - 1]).count());
    marks_.clear();  // the next block's first mark starts it: the harness's own work between blocks is not a step
    return out;
  }
  int block_steps() const override { return 1; }

 private:
  std::vector<std::chrono::steady_clock::time_point> marks_;
};

class CudaEventClock : public StepClock {
 public:
  void mark() override {
    events_.push_back(std::make_shared<at::cuda::CUDAEvent>(cudaEventDefault));
    events_.back()->record();
  }
  std::vector<double> collect() override {
    std::vector<double> out;
    if (events_.empty()) return out;
    events_.back()->synchronize();
    for (size_t i = 1; i < events_.size(); ++i) out.push_back(events_[i - 1]->elapsed_time(*events_[i]) / 1000.0);
    events_.clear();
    return out;
  }
  int block_steps() const override { return 5; }

 private:
  std::vector<std::shared_ptr<at::cuda::CUDAEvent>> events_;
};

}  // namespace

std::unique_ptr<StepClock> make_step_clock(const std::string& device) {
  if (torch::Device(device).is_cuda()) return std::make_unique<CudaEventClock>();
  return std::make_unique<WallClock>();
}

}  // namespace tune
