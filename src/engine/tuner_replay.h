// Runs a tuner against a replay landscape: the ask/tell loop of the search engine with recorded
// results instead of trials, so strategies are compared on regret and simulated cost, without hardware.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/replay_landscape.h"

namespace tune {

struct ReplayedTrial {
  Candidate candidate;
  TrialResult result;
  double seconds = 0;  // simulated wall time
};

struct ReplayRun {
  std::vector<ReplayedTrial> trials;  // in the order they were asked
  std::optional<std::pair<Candidate, TrialResult>> best;
  double cost_seconds = 0;  // sum of the trials' simulated seconds
  bool finished = false;    // the tuner ended by itself (ask() returned nothing) within max_trials
  std::string stop_reason;
};

// Asks and tells until the tuner is done or max_trials trials ran.
ReplayRun run_tuner(Tuner& tuner, const ReplayLandscape& landscape, int max_trials);

}  // namespace tune
