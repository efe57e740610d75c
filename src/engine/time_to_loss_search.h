// The time-to-loss stage: after the throughput stage, the batch size and learning rate that reach a
// target loss in the least wall time (steps to the target x the throughput stage's step time).
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/time_to_loss.h"
#include "tuners/tuner_space.h"

namespace tune {

// One trial of the stage, scored: steps_to_target 0 and seconds_to_target 0 when it never got there.
struct TimeToLossTrial {
  Candidate candidate;          // as run (train_steps resolved)
  TrialResult result;
  int steps_to_target = 0;
  double seconds_to_target = 0;
  bool reaches() const { return steps_to_target > 0; }
};

struct TimeToLossOutcome {
  double target_loss = 0;
  std::string target_source;    // how the target was set, for the output
  int target_samples = 0;
  std::vector<TimeToLossTrial> trials;  // in the order they ran, the reference trial first
  std::optional<TimeToLossTrial> best;  // the fewest seconds to the target, on the pooled clock
  std::string stop;                     // why the stage ended
  // The clock the best is chosen on: per batch, the median over the throughput stage's step time and every
  // trial's at that batch (each a process of its own).
  std::map<int, double> step_seconds;
};

struct TimeToLossPlan {
  TimeToLossTarget target;
  std::map<int, double> step_seconds;  // the throughput stage: batch -> median step time, sizes that fit
  int throughput_batch = 1;            // the throughput stage's choice: the ladder starts there
  int max_batch_size = 64;             // the ladder walks up to it (below any size that failed)
  std::string lr_tuner = "lr_sweep";   // a learning-rate strategy runs a batch ladder; grid or random, the joint space
  TunerSpace lr_space;                 // learning rates, options and max_trials of the strategy
  uint64_t seed = 0;
  // Stop a trial once it has run as long as the best time to the target so far (the joint space), or as the
  // best before its rung began (the ladder, so a rung's trials compare at one length): it can no longer win.
  bool time_cap = true;
  // ...plus this share: the cap is in steps at one throughput trial's step time, which moves by ~10% from
  // process to process on the 2-core CPU; a batch measured slow still gets to reach the target, and the
  // choice is then made on the pooled clock (TimeToLossOutcome::step_seconds).
  double time_cap_margin = 0.10;
};

// Runs one candidate (train_steps set) and returns its result, or nothing when the budget ends the stage.
using TimeToLossRunner = std::function<std::optional<TrialResult>(const Candidate&)>;

// The reference trial (unless the plan has a target), then either the strategy over the joint space
// of fitting batch sizes x learning rates (strategies that search batch sizes too: grid, random), or a
// batch ladder: the strategy at the throughput stage's batch, then halving the batch with the
// scaling-rule rates from the best so far while the time to the target improves (doubling instead when
// the first halving does not improve), and not past a halving the large-batch model rules out.
TimeToLossOutcome search_time_to_loss(const TimeToLossPlan& plan, const TimeToLossRunner& run);

// The outcome for `tune --json`: target, best and every trial (batch, rate, steps, time to the target).
nlohmann::json time_to_loss_json(const TimeToLossOutcome& outcome);

}  // namespace tune
