// The trial's measurement protocol, one definition for every backend (libtorch in process, or the Python worker):
// the first warmup_steps steps timed apart, then steady-state blocks until the median's CI is tight, a time cap or
// the step count; every loss kept (a non-finite one ends the trial as diverged); the result's figures from the times.
#pragma once
#include <optional>
#include <vector>

#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// One block of steps as it ran: per step its time and the part of it spent compiling (0 where the step compiled
// nothing: a libtorch backend compiles before its first step, torch.compile inside it).
struct StepBlock {
  std::vector<double> times;
  std::vector<double> compile_seconds;
};

// Where the steps run: the in-process StepLoop (trial/step_loop.h) or the Python worker (trial/python_trial.h).
class StepRunner {
 public:
  virtual ~StepRunner() = default;
  // Runs n steps, their losses recorded into the result (record_loss); nothing when the trial failed (the
  // result then says how).
  virtual std::optional<StepBlock> run(int n) = 0;
  virtual int done() const = 0;         // steps run so far
  virtual int block_steps() const = 0;  // steps per timed block (1 on CPU; more on a GPU, so launches overlap)
};

// The steps a trial of this spec runs: warm-up plus the step cap (throughput), its train steps (at least the
// warm-up plus one), or the paired rounds.
int total_steps(const TrialSpec& spec);

// Appends a finite loss; a non-finite one ends the curve without entering it (JSON has no NaN) and marks the
// result diverged, with the value and the step in its message. Returns whether the loss was finite.
bool record_loss(TrialResult& r, double loss);

// The warm-up's figures: its compile time (added to r.compile_seconds), the first step and the rest, without
// the compile time inside them.
void account_warmup(const StepBlock& warmup, TrialResult& r);

// Warm-up, then steady-state blocks until the stopping rule (throughput trials) or total_steps. False when the
// runner failed (r says how).
bool run_measured_steps(const TrialSpec& spec, StepRunner& runner, TrialResult& r);

// Median step time, its CI, throughput and compile overhead from r.step_times; the score from r.losses.
void summarise_steps(const TrialSpec& spec, TrialResult& r);
// A learning-rate trial whose tail-mean loss rose far above the lowest loss it reached (more than 1 nat and half
// its gain from the first step) diverged late: its status becomes diverged, with the figures in the message.
void check_late_divergence(TrialResult& r);

}  // namespace tune
