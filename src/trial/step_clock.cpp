// Step clocks. The CUDA clock records an event per boundary so the GPU's own time between steps is
// measured (launch gaps included), and the host waits only at the end of a block.
#include "trial/step_clock.h"

#include <ATen/cuda/CUDAEvent.h>
#include <torch/torch.h>

#include <time.h>

#include <chrono>
#include <stdexcept>

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

// Process CPU time: with one intra-op thread, the step's own work, however often the core was taken away.
class CpuTimeClock : public StepClock {
 public:
  void mark() override {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    marks_.push_back(static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec));
  }
  std::vector<double> collect() override {
    std::vector<double> out;
    for (size_t i = 1; i < marks_.size(); ++i) out.push_back(marks_[i] - marks_[i - 1]);
    marks_.clear();
    return out;
  }
  int block_steps() const override { return 1; }

 private:
  std::vector<double> marks_;
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

std::unique_ptr<StepClock> make_step_clock(const std::string& device, const std::string& kind) {
  const bool cuda = torch::Device(device).is_cuda();
  if (kind != "wall" && kind != "cpu")
    throw std::invalid_argument("step clock '" + kind + "': expected wall or cpu");
  if (kind == "cpu" && cuda) throw std::invalid_argument("step clock 'cpu' on " + device + ": expected a CPU device");
  if (cuda) return std::make_unique<CudaEventClock>();
  if (kind == "cpu") return std::make_unique<CpuTimeClock>();
  return std::make_unique<WallClock>();
}

}  // namespace tune
