// The timed step loop: losses stay on the device until a block ends, so timing adds no sync per step;
// a step that syncs by itself shows up as a counted warning.
#include "trial/step_loop.h"

#include "trial/lr_schedule.h"
#include "trial/warning_capture.h"

namespace tune {

StepLoop::StepLoop(const TrialSpec& spec, TrainStep& step, const std::vector<Batch>& pool, TrialResult& r)
    : spec_(spec), step_(step), pool_(pool), r_(r), clock_(make_step_clock(spec.step.device, spec.measure.step_clock)) {}

std::optional<StepBlock> StepLoop::run(int n) {
  std::vector<torch::Tensor> losses;
  {
    SyncWarnings syncs(spec_.step.device);
    clock_->mark();
    const std::vector<double> rates = scheduled_learning_rates(spec_, done_, n);
    for (int i = 0; i < n; ++i) {
      if (!rates.empty()) step_.set_learning_rate(rates[i]);
      losses.push_back(step_.step(pool_[done_++ % pool_.size()]));
      clock_->mark();
    }
  }
  StepBlock block{clock_->collect(), {}};
  for (const auto& loss : losses)
    if (!record_loss(r_, loss.item<double>())) return std::nullopt;
  return block;
}

}  // namespace tune
