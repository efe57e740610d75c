// The ask/tell interface every search strategy implements: a tuner proposes candidates and is told
// their results; it never runs a trial itself, so strategies are testable on recorded results.
#pragma once
#include <optional>
#include <string>

#include "trial/trial_result.h"

namespace tune {

struct Candidate {
  int batch_size = 1;
  double learning_rate = 1e-4;
  int train_steps = 0;  // 0: the engine's default (learning-rate trials); successive halving sets it per rung
};

inline bool operator==(const Candidate& a, const Candidate& b) {
  return a.batch_size == b.batch_size && a.learning_rate == b.learning_rate && a.train_steps == b.train_steps;
}

class Tuner {
 public:
  virtual ~Tuner() = default;
  virtual std::string name() const = 0;
  // The next candidate to measure, or nullopt when the tuner is done (see stop_reason()).
  virtual std::optional<Candidate> ask() = 0;
  virtual void tell(const Candidate& candidate, const TrialResult& result) = 0;
  // The best candidate told so far and its result, if any trial succeeded.
  virtual std::optional<std::pair<Candidate, TrialResult>> best() const = 0;
  std::string stop_reason() const { return stop_reason_; }

 protected:
  std::string stop_reason_;
};

}  // namespace tune
