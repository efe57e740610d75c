// Random search: seeded draws of a power-of-two batch size and a log-uniform learning rate, a
// cheap baseline that needs no model of the landscape; best by the stage objective.
#pragma once
#include <random>
#include <vector>

#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

// The throughput stage keeps reference_learning_rate (throughput does not depend on it), so its
// draws are batch sizes without repeats. A repeated candidate is drawn again, never measured twice.
class RandomSearch : public Tuner {
 public:
  static const OptionList& options();
  RandomSearch(const TunerSpace& space, uint64_t seed);
  std::string name() const override { return "random"; }

 private:
  std::optional<Candidate> propose() override;
  void observe(const Candidate& candidate, const TrialResult& result) override;
  Candidate draw();
  bool already_asked(const Candidate& candidate) const;

  TunerSpace space_;
  std::vector<int> batches_;
  int trials_;
  std::mt19937_64 rng_;
  std::optional<Candidate> pending_;
};

}  // namespace tune
