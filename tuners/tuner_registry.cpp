// The registry: one entry per strategy (name, summary, objectives, declared options, factory).
// Adding a strategy is one entry here and its own file.
#include "tuners/tuner_registry.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "tuners/batch_ramp.h"
#include "tuners/batch_search.h"
#include "tuners/gp_search.h"
#include "tuners/grid_search.h"
#include "tuners/lr_sweep.h"
#include "tuners/random_search.h"
#include "tuners/successive_halving.h"
#include "util/join.h"

namespace tune {
namespace {

using Factory = std::function<std::unique_ptr<Tuner>(const TunerSpace&, uint64_t seed)>;

struct Entry {
  TunerInfo info;
  Factory make;
};

template <typename Strategy>
Entry entry(const char* name, const char* summary, std::vector<StageObjective> objectives) {
  Factory make = [](const TunerSpace& space, uint64_t seed) -> std::unique_ptr<Tuner> {
    if constexpr (std::is_constructible_v<Strategy, const TunerSpace&, uint64_t>)
      return std::make_unique<Strategy>(space, seed);
    else
      return std::make_unique<Strategy>(space);
  };
  return {{name, summary, std::move(objectives), &Strategy::options()}, std::move(make)};
}

// A function-local static: test suites instantiate over tuner_names() during static initialisation.
const std::vector<Entry>& entries() {
  const std::vector<StageObjective> batch_stage{StageObjective::throughput}, lr_stage{StageObjective::loss},
      both_stages{StageObjective::throughput, StageObjective::loss};
  static const std::vector<Entry> registry{
      entry<SuccessiveHalving>("asha", "learning rate by successive halving, with scaling-rule candidates", lr_stage),
      entry<BatchRamp>("batch_ramp", "batch sizes doubling until out of memory or flat throughput", batch_stage),
      entry<BatchSearch>("batch_search", "doubling to the memory boundary, then bisection; a safety margin",
                         batch_stage),
      entry<GpSearch>("gp", "learning rate by a Gaussian-process surrogate and expected improvement", lr_stage),
      entry<GridSearch>("grid", "every batch size x every learning rate", both_stages),
      entry<LrSweep>("lr_sweep", "the learning-rate list at one batch size", lr_stage),
      entry<RandomSearch>("random", "seeded random batch sizes and log-uniform learning rates", both_stages),
  };
  return registry;
}

const Entry& find_entry(const std::string& name) {
  for (const auto& entry : entries())
    if (entry.info.name == name) return entry;
  throw std::invalid_argument("unknown tuner '" + name + "': expected one of " + join(tuner_names()));
}

}  // namespace

const std::vector<TunerInfo>& tuner_catalog() {
  static const std::vector<TunerInfo> catalog = [] {
    std::vector<TunerInfo> infos;
    for (const auto& entry : entries()) infos.push_back(entry.info);
    return infos;
  }();
  return catalog;
}

std::vector<std::string> tuner_names() {
  std::vector<std::string> names;
  for (const auto& info : tuner_catalog()) names.push_back(info.name);
  return names;
}

bool tuner_supports(const std::string& name, StageObjective objective) {
  const auto& objectives = find_entry(name).info.objectives;
  return std::find(objectives.begin(), objectives.end(), objective) != objectives.end();
}

std::unique_ptr<Tuner> make_tuner(const std::string& name, const TunerSpace& space, uint64_t seed) {
  const Entry& entry = find_entry(name);
  validate_space(space);
  check_option_names(space, name, entry.info.options->names());
  if (!tuner_supports(name, space.objective))
    throw std::invalid_argument("tuner '" + name + "' cannot run a " + to_string(space.objective) +
                                " stage: it serves " + to_string(entry.info.objectives.front()) + " only");
  return entry.make(space, seed);
}

}  // namespace tune
