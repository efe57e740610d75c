// Runs a trial's training steps in blocks timed by its step clock, keeping the loss curve and stopping
// at a non-finite loss. Shared by single-backend trials and paired trials (one loop per backend).
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "compile/train_step.h"
#include "data/batch.h"
#include "trial/step_clock.h"
#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// Step i trains on pool[i % pool.size()]: every loop over the same pool sees the same batches in order.
class StepLoop {
 public:
  StepLoop(const TrialSpec& spec, TrainStep& step, const std::vector<Batch>& pool, TrialResult& r);

  // Runs n steps and appends their losses to r.losses; returns their times, or nothing when the loss
  // diverged (r.status is then diverged, with the step in its message).
  std::optional<std::vector<double>> run(int n);
  int done() const { return done_; }
  int block_steps() const { return clock_->block_steps(); }

 private:
  bool record_loss(double loss);
  const TrialSpec& spec_;
  TrainStep& step_;
  const std::vector<Batch>& pool_;
  TrialResult& r_;
  std::unique_ptr<StepClock> clock_;
  int done_ = 0;
};

}  // namespace tune
