// Helpers for the tuner tests: replaying a registered strategy on a landscape, the spaces each
// strategy serves, and what a run spent (steps, regret).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "bert_tiny_landscape.h"
#include "engine/tuner_replay.h"
#include "tuners/tuner_registry.h"

namespace tune::testing {

inline ReplayRun replay_tuner(const std::string& name, const TunerSpace& space, const ReplayLandscape& landscape,
                              uint64_t seed = 1) {
  auto tuner = make_tuner(name, space, seed);
  return run_tuner(*tuner, landscape, 10 * space.max_trials);  // generous: the tuner must stop by itself
}

inline std::vector<std::string> tuners_for(StageObjective objective) {
  std::vector<std::string> names;
  for (const auto& name : tuner_names())
    if (tuner_supports(name, objective)) names.push_back(name);
  return names;
}

// The stage spaces a strategy serves: the batch stage, the learning-rate stage, or both.
inline std::vector<TunerSpace> spaces_for(const std::string& name) {
  std::vector<TunerSpace> spaces;
  if (tuner_supports(name, StageObjective::throughput)) spaces.push_back(batch_stage_space());
  if (tuner_supports(name, StageObjective::loss)) spaces.push_back(lr_stage_space());
  return spaces;
}

// Train steps a run spent on the candidates that match.
inline size_t steps_spent(const ReplayRun& run, const std::function<bool(const Candidate&)>& match) {
  size_t steps = 0;
  for (const auto& trial : run.trials)
    if (match(trial.candidate)) steps += trial.result.losses.size();
  return steps;
}

// The fastest batch size among the landscape's recorded sizes that fit its memory limit.
inline int fastest_fitting_batch(const ReplayLandscape& landscape) {
  int fastest = 0;
  double best_speed = 0;
  for (int batch : landscape.recorded_batch_sizes()) {
    const RecordedBatch record = landscape.batch_at(batch);
    if (record.status == TrialStatus::ok && record.samples_per_second > best_speed) {
      fastest = batch;
      best_speed = record.samples_per_second;
    }
  }
  return fastest;
}

}  // namespace tune::testing
