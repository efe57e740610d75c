// Learning-rate schedules: the factor per step and the rates a runner sets before each step, so the
// in-process and the Python worker's steps train with the same rates.
#include "trial/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "trial/measurement.h"

namespace tune {

void check_lr_schedule(const std::string& name) {
  if (name != "constant" && name != "cosine")
    throw std::invalid_argument("learning-rate schedule '" + name + "': expected constant or cosine");
}

void check_lr_schedule(const TrialSpec& spec) {
  check_lr_schedule(spec.lr_schedule);
  if (spec.lr_warmup_steps < 0)
    throw std::invalid_argument("lr_warmup_steps " + std::to_string(spec.lr_warmup_steps) + ": expected >= 0");
}

double lr_schedule_factor(const std::string& schedule, int warmup_steps, int total_steps, int step) {
  if (step < warmup_steps) return static_cast<double>(step + 1) / warmup_steps;
  if (schedule == "constant" || total_steps <= warmup_steps) return 1.0;
  const double progress = std::min(1.0, static_cast<double>(step - warmup_steps) / (total_steps - warmup_steps));
  return 0.5 * (1 + std::cos(M_PI * progress));
}

bool has_lr_schedule(const TrialSpec& spec) { return spec.lr_schedule != "constant" || spec.lr_warmup_steps > 0; }

std::vector<double> scheduled_learning_rates(const TrialSpec& spec, int first, int n) {
  std::vector<double> rates;
  if (!has_lr_schedule(spec)) return rates;
  const int total = total_steps(spec);
  for (int step = first; step < first + n; ++step)
    rates.push_back(spec.learning_rate * lr_schedule_factor(spec.lr_schedule, spec.lr_warmup_steps, total, step));
  return rates;
}

}  // namespace tune
