// Runs a trial's training steps in this process, in blocks timed by its step clock, keeping the loss curve and
// stopping at a non-finite loss. The in-process StepRunner of single-backend and paired trials (one per backend).
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "compile/train_step.h"
#include "common/batch.h"
#include "trial/measurement.h"
#include "trial/step_clock.h"
#include "trial/step_observers.h"

namespace tune {

// Step i trains on pool[i % pool.size()]: every loop over the same pool sees the same batches in order.
class StepLoop : public StepRunner {
 public:
  // `observer` (when given) acts around each block and step (trial/step_observers.h); it throwing ends the block
  // with its exception.
  StepLoop(const TrialSpec& spec, TrainStep& step, const std::vector<Batch>& pool, TrialResult& r,
           StepObserver* observer = nullptr);

  // Runs n steps and records their losses; their times (nothing compiled inside them: a libtorch step is
  // prepared before), or nothing when the loss diverged.
  std::optional<StepBlock> run(int n) override;
  int done() const override { return done_; }
  int block_steps() const override { return clock_->block_steps(); }

 private:
  const TrialSpec& spec_;
  TrainStep& step_;
  const std::vector<Batch>& pool_;
  TrialResult& r_;
  std::unique_ptr<StepClock> clock_;
  StepObserver* observer_;
  int done_ = 0;
};

}  // namespace tune
