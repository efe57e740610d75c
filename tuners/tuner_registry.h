// Strategies by name: `tune` and the tests build any search strategy from a name, a TunerSpace and
// a seed, and list the names (with the stage objectives and options each one serves) for help and validation.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

struct TunerInfo {
  std::string name;
  std::string summary;
  std::vector<StageObjective> objectives;  // the stages it can run: batch (throughput), learning rate (loss)
  const OptionList* options = nullptr;     // its options with their defaults
};

// Every registered strategy, in name order.
const std::vector<TunerInfo>& tuner_catalog();
std::vector<std::string> tuner_names();
bool tuner_supports(const std::string& name, StageObjective objective);

// Builds the named strategy for the space; it asks at most space.max_trials candidates (the Tuner base's
// cap). Throws std::invalid_argument quoting an unknown name (listing the known ones), an option the
// strategy does not declare, an objective it does not serve, or a bad space.
std::unique_ptr<Tuner> make_tuner(const std::string& name, const TunerSpace& space, uint64_t seed);

}  // namespace tune
