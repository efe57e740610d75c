// What a search strategy proposes (a batch size, a learning rate, a trial length) and a told trial:
// the candidate with the result it got. Every strategy, the driver and the replay speak in these.
#pragma once
#include <utility>

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

using ToldTrial = std::pair<Candidate, TrialResult>;

}  // namespace tune
