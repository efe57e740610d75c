// The timed step loop: losses stay on the device until a block ends, so timing adds no sync per step;
// a step that syncs by itself shows up as a counted warning.
#include "trial/step_loop.h"

#include <cmath>
#include <string>

#include "trial/warning_capture.h"

namespace tune {

StepLoop::StepLoop(const TrialSpec& spec, TrainStep& step, const std::vector<Batch>& pool, TrialResult& r)
    : spec_(spec), step_(step), pool_(pool), r_(r), clock_(make_step_clock(spec.step.device, spec.measure.step_clock)) {}

std::optional<std::vector<double>> StepLoop::run(int n) {
  std::vector<torch::Tensor> losses;
  {
    SyncWarnings syncs(spec_.step.device);
    clock_->mark();
    for (int i = 0; i < n; ++i) {
      losses.push_back(step_.step(pool_[done_++ % pool_.size()]));
      clock_->mark();
    }
  }
  auto times = clock_->collect();
  for (const auto& loss : losses)
    if (!record_loss(loss.item<double>())) return std::nullopt;
  return times;
}

// A non-finite loss ends the curve without entering it: JSON has no NaN (it would write null, and
// the parent could not read the result back); the message keeps the value.
bool StepLoop::record_loss(double loss) {
  if (std::isfinite(loss)) {
    r_.losses.push_back(loss);
    return true;
  }
  r_.status = TrialStatus::diverged;
  r_.error_stage = "step";
  r_.error_message = "loss became " + std::to_string(loss) + " at step " + std::to_string(r_.losses.size() + 1);
  return false;
}

}  // namespace tune
