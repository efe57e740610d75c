// Runs a strategy against a replay landscape through the search driver: the engine's loop with recorded
// results instead of trials, so strategies are compared on regret and simulated cost, without hardware.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/replay_landscape.h"
#include "engine/search_driver.h"

namespace tune {

// The driver's source over a landscape: every candidate "runs" as replayed, its wall time simulated.
class LandscapeSource : public TrialSource {
 public:
  explicit LandscapeSource(const ReplayLandscape& landscape) : landscape_(landscape) {}
  TrialResult run(const Candidate& candidate) override { return landscape_.replay(candidate); }

 private:
  const ReplayLandscape& landscape_;
};

// A budget of a number of new trials (a replay's guard, or a test's budget stop).
class TrialCountBudget : public Budget {
 public:
  explicit TrialCountBudget(int trials) : left_(trials) {}
  std::optional<std::string> refuses(const Candidate&) override;

 private:
  int left_;
};

struct ReplayRun {
  std::vector<DrivenTrial> trials;  // in the order they were asked; result.wall_seconds is the simulated time
  std::optional<ToldTrial> best;
  double cost_seconds = 0;  // sum of the trials' simulated seconds
  bool finished = false;    // the tuner ended by itself (ask() returned nothing) within max_trials
  std::string stop_reason;
};

// Drives the tuner on the landscape until it is done or max_trials trials ran.
ReplayRun run_tuner(Tuner& tuner, const ReplayLandscape& landscape, int max_trials);

}  // namespace tune
