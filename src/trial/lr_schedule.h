// The learning-rate schedule a trial trains with, as a real job runs one: linear warm-up, then a constant rate
// or cosine decay to zero at the trial's last step. Torch-free: both step runners send the rates it gives.
#pragma once
#include <string>
#include <vector>

#include "trial/trial_spec.h"

namespace tune {

// Throws std::invalid_argument quoting a name that is not "constant" or "cosine".
void check_lr_schedule(const std::string& name);
// The spec's schedule and warm-up (>= 0); same error.
void check_lr_schedule(const TrialSpec& spec);

// The factor on the peak rate at step `step` (0-based) of `total_steps`: (step + 1) / warmup_steps during the
// warm-up, then 1 (constant) or 0.5 (1 + cos(pi (step - warmup) / (total - warmup))) (cosine).
double lr_schedule_factor(const std::string& schedule, int warmup_steps, int total_steps, int step);

// Whether the spec's rate changes from step to step (a schedule other than constant, or a warm-up).
bool has_lr_schedule(const TrialSpec& spec);

// The rates of steps first .. first + n - 1 of the spec's trial (its learning_rate x the factor over its
// total_steps); empty when the rate is constant, so a runner sets nothing.
std::vector<double> scheduled_learning_rates(const TrialSpec& spec, int first, int n);

}  // namespace tune
