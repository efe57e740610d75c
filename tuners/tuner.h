// The ask/tell interface every search strategy implements: a tuner proposes candidates and is told
// their results; it never runs a trial itself, so strategies are testable on recorded results.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tuners/objective.h"

namespace tune {

// The base keeps what every strategy shares: the told trials, the best-so-far rule of the stage
// objective, and the trial cap. A strategy supplies propose() and, when it plans on results, observe().
class Tuner {
 public:
  virtual ~Tuner() = default;
  virtual std::string name() const = 0;
  // The next candidate to measure, or nullopt when the tuner is done (see stop_reason()): the strategy's
  // proposal while fewer than max_trials were told.
  std::optional<Candidate> ask();
  // Records the trial, then lets the strategy update its plan.
  void tell(const Candidate& candidate, const TrialResult& result);
  // The best told trial by the stage objective (objective.h); strategies with another rule override it.
  virtual std::optional<ToldTrial> best() const;

  const std::vector<ToldTrial>& told() const { return told_; }
  StageObjective objective() const { return objective_; }
  std::string stop_reason() const { return stop_reason_; }
  bool stopped_by_trial_cap() const { return capped_; }

 protected:
  // max_trials 0: no cap (a strategy over strategies caps the ones it runs instead).
  Tuner(StageObjective objective, int max_trials) : objective_(objective), max_trials_(max_trials) {}
  virtual std::optional<Candidate> propose() = 0;
  virtual void observe(const Candidate&, const TrialResult&) {}

  std::string stop_reason_;

 private:
  StageObjective objective_;
  int max_trials_;
  bool capped_ = false;
  std::vector<ToldTrial> told_;
};

}  // namespace tune
