// Random search: seeded draws of a power-of-two batch size and a log-uniform learning rate, a
// cheap baseline that needs no model of the landscape; best by the stage objective.
#pragma once
#include <random>
#include <vector>

#include "tuners/tuner_space.h"

namespace tune {

// Options (TunerSpace::options):
//   trials  how many candidates to draw (default 12; never more than max_trials)
// The throughput stage keeps reference_learning_rate (throughput does not depend on it), so its
// draws are batch sizes without repeats. A repeated candidate is drawn again, never measured twice.
class RandomSearch : public Tuner {
 public:
  static std::vector<std::string> option_names() { return {"trials"}; }
  RandomSearch(const TunerSpace& space, uint64_t seed);
  std::string name() const override { return "random"; }
  std::optional<Candidate> ask() override;
  void tell(const Candidate& candidate, const TrialResult& result) override;
  std::optional<std::pair<Candidate, TrialResult>> best() const override;

 private:
  Candidate draw();
  bool already_asked(const Candidate& candidate) const;

  TunerSpace space_;
  std::vector<int> batches_;
  int trials_;
  std::mt19937_64 rng_;
  std::optional<Candidate> pending_;
  std::vector<ToldTrial> told_;
};

}  // namespace tune
