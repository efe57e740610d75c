// TEST ONLY: the injected slowdown. The extra time is timed against the step it follows, so the slowdown
// is the same share on any machine. On the CPU it is busy work measured in process CPU time, as a real
// regression would be (more work), so both the wall and the CPU-time step clocks see it; on a GPU the host
// waits after a synchronize.
#include "compile/slowed_step.h"

#include <time.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include <torch/cuda.h>

namespace tune {
namespace {

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

class SlowedStep : public TrainStep {
 public:
  SlowedStep(std::unique_ptr<TrainStep> inner, double fraction) : inner_(std::move(inner)), fraction_(fraction) {}
  std::string backend() const override { return inner_->backend(); }
  CompileReport prepare(const Batch& example) override { return inner_->prepare(example); }
  std::string runtime_info() const override { return inner_->runtime_info() + " [test-only injected slowdown]"; }
  void set_learning_rate(double learning_rate) override { inner_->set_learning_rate(learning_rate); }
  void set_gradient_sync(std::function<void()> sync) override { inner_->set_gradient_sync(std::move(sync)); }

  torch::Tensor step(const Batch& batch) override {
    const double cpu_start = process_cpu_seconds();
    const auto wall_start = std::chrono::steady_clock::now();
    torch::Tensor loss = inner_->step(batch);
    if (loss.is_cuda()) {
      torch::cuda::synchronize();  // the step's own time, not its launch time
      std::this_thread::sleep_for((std::chrono::steady_clock::now() - wall_start) * fraction_);
      return loss;
    }
    const double cpu_end = process_cpu_seconds();
    const double until = cpu_end + (cpu_end - cpu_start) * fraction_;
    while (process_cpu_seconds() < until) {
    }
    return loss;
  }

 private:
  std::unique_ptr<TrainStep> inner_;
  double fraction_;
};

}  // namespace

std::unique_ptr<TrainStep> slow_down(std::unique_ptr<TrainStep> inner, double fraction) {
  if (!(fraction >= 0 && fraction <= 10))
    throw std::invalid_argument("injected slowdown " + std::to_string(fraction) +
                                ": expected a share of the step time between 0 and 10");
  return std::make_unique<SlowedStep>(std::move(inner), fraction);
}

}  // namespace tune
