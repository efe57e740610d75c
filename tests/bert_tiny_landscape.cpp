// Builds the bert-tiny replay landscape from throughput figures and a smooth loss model, recorded at
// fixed points so the landscape's interpolation is exercised as it would be on recorded trials.
#include "bert_tiny_landscape.h"

#include <cmath>

namespace tune::testing {
namespace {

constexpr int64_t kMiB = 1LL << 20;
constexpr int kRecordedSteps = 81;

// The loss after `step` steps: a decay from ln(vocab) towards a floor; too low a rate learns slowly,
// too high a rate learns fast but to a higher floor; above 1e-2 the loss blows up to NaN, sooner the higher.
double loss_at(int batch, double lr, int step) {
  const double best_lr = 1e-3 * std::sqrt(batch / 32.0);
  const double x = std::log10(lr / best_lr);
  const double speed = 2 / (1 + std::pow(10, -x));
  const double floor = 5.2 + (x > 0 ? 1.5 : 0.15) * x * x;
  double loss = floor + (10.4 - floor) * std::exp(-0.09 * speed * step) + 0.03 * std::sin(1.7 * step + 2 * x);
  const double beyond = std::log10(lr / kDivergenceLearningRate);
  if (beyond > 0) {
    const double nan_step = std::ceil(6 / beyond);
    if (step >= nan_step) return std::nan("");
    loss *= 1 + 0.6 * std::pow(step / nan_step, 3);
  }
  return loss;
}

}  // namespace

std::vector<int> bert_tiny_recorded_batches() { return {1, 2, 4, 8, 16, 32, 64, 128}; }

ReplayLandscape bert_tiny_landscape(int64_t memory_limit_bytes) {
  // No per-trial overhead: cost is steps x step time, the work a strategy chooses to spend.
  ReplayLandscape landscape(memory_limit_bytes, 27, 0.0);
  const std::vector<std::pair<int, double>> speeds{{1, 180},    {2, 340},    {4, 610},   {8, 1000},
                                                   {16, 1450}, {32, 1700}, {64, 1750}};
  for (const auto& [batch, samples_per_second] : speeds) {
    landscape.record_batch(batch, {TrialStatus::ok, samples_per_second, 400 * kMiB + batch * 48 * kMiB});
    for (int i = 0; i <= 16; ++i) {
      const double lr = 1e-5 * std::pow(10, i / 4.0);
      std::vector<double> losses;
      for (int step = 1; step <= kRecordedSteps; ++step) losses.push_back(loss_at(batch, lr, step));
      landscape.record_losses(batch, lr, losses);
    }
  }
  landscape.record_batch(128, {TrialStatus::oom, 0, 0});
  return landscape;
}

TunerSpace batch_stage_space(int64_t memory_limit_bytes) {
  TunerSpace space;
  space.min_batch_size = 1;
  space.max_batch_size = 256;
  space.objective = StageObjective::throughput;
  space.reference_learning_rate = 1e-4;
  space.memory_limit_bytes = memory_limit_bytes;
  space.max_trials = 40;
  return space;
}

TunerSpace lr_stage_space() {
  TunerSpace space;
  space.min_batch_size = space.max_batch_size = 64;
  space.min_learning_rate = 1e-5;
  space.max_learning_rate = 1e-1;
  space.learning_rates = {1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1};
  space.reference_batch_size = 8;
  space.reference_learning_rate = 1e-3;
  space.objective = StageObjective::loss;
  space.max_trials = 40;
  space.train_steps = 27;
  return space;
}

}  // namespace tune::testing
