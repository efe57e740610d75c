// The timed step loop: losses stay on the device until a block ends, so timing adds no sync per step;
// a step that syncs by itself shows up as a counted warning.
#include "trial/step_loop.h"

#include <cstdio>

#include "trial/lr_schedule.h"
#include "trial/warning_capture.h"

namespace tune {

StepLoop::StepLoop(const TrialSpec& spec, TrainStep& step, const std::vector<Batch>& pool, TrialResult& r,
                   StepObserver* observer)
    : spec_(spec),
      step_(step),
      pool_(pool),
      r_(r),
      clock_(make_step_clock(spec.step.device, spec.measure.step_clock)),
      observer_(observer) {}

namespace {

// The observer's block hooks around a block, ended however the block ends (a process-wide tool is never left on).
struct ObservedBlock {
  StepObserver* observer;
  explicit ObservedBlock(StepObserver* o) : observer(o) {
    if (observer) observer->begin_block();
  }
  // Ending a block only turns a tool off; one that throws there (a profiler that cannot stop) has already made
  // the block's result moot, and a destructor must not throw while a step's exception unwinds.
  ~ObservedBlock() {
    if (!observer) return;
    try {
      observer->end_block();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tune: observer could not end its block: %s\n", e.what());
    }
  }
};

}  // namespace

std::optional<StepBlock> StepLoop::run(int n) {
  std::vector<torch::Tensor> losses;
  {
    ObservedBlock observed(observer_);
    SyncWarnings syncs(spec_.step.device);
    clock_->mark();
    const std::vector<double> rates = scheduled_learning_rates(spec_, done_, n);
    for (int i = 0; i < n; ++i) {
      if (!rates.empty()) step_.set_learning_rate(rates[i]);
      if (observer_) observer_->before_step(done_);
      losses.push_back(step_.step(pool_[done_ % pool_.size()]));
      if (observer_) observer_->after_step(done_, losses.back());
      ++done_;
      clock_->mark();
    }
  }
  StepBlock block{clock_->collect(), {}};
  for (const auto& loss : losses)
    if (!record_loss(r_, loss.item<double>())) return std::nullopt;
  return block;
}

}  // namespace tune
