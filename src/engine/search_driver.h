// The one ask/tell loop every search runs through (the engine's stages, the time-to-loss ladder, the replay):
// ask the strategy, take the candidate's result from the store or run it, tell it; stop when the strategy
// is done, its trial cap is reached, or the next new trial does not fit the budget.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "common/stop_reasons.h"
#include "tuners/tuner.h"

namespace tune {

// Where a candidate's result comes from: the study's store and a trial process (the engine), or a
// recorded landscape (the replay).
class TrialSource {
 public:
  virtual ~TrialSource() = default;
  // A result recorded earlier for this candidate, reused at no cost; nothing to run it.
  virtual std::optional<TrialResult> stored(const Candidate&) { return std::nullopt; }
  // Runs the candidate and records its result.
  virtual TrialResult run(const Candidate& candidate) = 0;
};

// What is left to spend: why a new trial of the candidate would not fit (the stage ends there), or nothing.
class Budget {
 public:
  virtual ~Budget() = default;
  virtual std::optional<std::string> refuses(const Candidate& candidate) = 0;
};

struct DrivenTrial {
  Candidate candidate;
  TrialResult result;
  bool reused = false;  // from the source's store, not run
};

struct DriveOutcome {
  std::vector<DrivenTrial> trials;  // in the order they were told
  std::optional<ToldTrial> best;    // the strategy's best
  StopCause cause = StopCause::strategy;
  std::string stop_reason;          // the strategy's own, or the budget's
  double run_seconds() const;       // wall time of the trials that ran (reused ones cost nothing)
};

struct DriveRules {
  Budget* budget = nullptr;       // nullptr: no limit
  bool first_trial_free = false;  // the stage's first trial runs whatever the budget says (one result per stage)
};

DriveOutcome drive(Tuner& tuner, TrialSource& source, const DriveRules& rules = {});

}  // namespace tune
