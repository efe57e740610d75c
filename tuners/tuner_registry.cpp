// The registry: one entry per strategy (name, summary, objectives, options, factory).
// Adding a strategy is one entry here and its own file.
#include "tuners/tuner_registry.h"
#include "util/join.h"

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
#include "tuners/trial_cap.h"

namespace tune {
namespace {

using Factory = std::function<std::unique_ptr<Tuner>(const TunerSpace&, uint64_t seed)>;

struct Entry {
  TunerInfo info;
  std::vector<std::string> options;
  Factory make;
};

std::unique_ptr<Tuner> make_batch_ramp(const TunerSpace& s, uint64_t) {
  return std::make_unique<BatchRamp>(BatchRampOptions{s.min_batch_size, s.max_batch_size,
                                                      s.option("min_throughput_gain", 0.05), s.reference_learning_rate,
                                                      static_cast<int>(s.option("patience", 1))});
}

std::unique_ptr<Tuner> make_lr_sweep(const TunerSpace& s, uint64_t) {
  return std::make_unique<LrSweep>(LrSweepOptions{
      s.max_batch_size, learning_rate_list(s, static_cast<int>(s.option("lr_points", 5))), s.option("start_near", 0)});
}

// A function-local static: test suites instantiate over tuner_names() during static initialisation.
const std::vector<Entry>& entries() {
  const std::vector<StageObjective> batch_stage{StageObjective::throughput}, lr_stage{StageObjective::loss},
      both_stages{StageObjective::throughput, StageObjective::loss};
  static const std::vector<Entry> registry{
      {{"asha", "learning rate by successive halving, with scaling-rule candidates", lr_stage},
       SuccessiveHalving::option_names(),
       [](const TunerSpace& s, uint64_t) { return std::make_unique<SuccessiveHalving>(s); }},
      {{"batch_ramp", "batch sizes doubling until out of memory or flat throughput", batch_stage},
       // min_throughput_gain (default 0.05): a doubling must gain this much samples/s to count as a gain;
       // patience (default 1): doublings in a row without it tolerated before the ramp stops.
       {"min_throughput_gain", "patience"},
       make_batch_ramp},
      {{"batch_search", "doubling to the memory boundary, then bisection; a safety margin", batch_stage},
       BatchSearch::option_names(),
       [](const TunerSpace& s, uint64_t) { return std::make_unique<BatchSearch>(s); }},
      {{"gp", "learning rate by a Gaussian-process surrogate and expected improvement", lr_stage},
       GpSearch::option_names(),
       [](const TunerSpace& s, uint64_t seed) { return std::make_unique<GpSearch>(s, seed); }},
      {{"grid", "every batch size x every learning rate", both_stages},
       GridSearch::option_names(),
       [](const TunerSpace& s, uint64_t) { return std::make_unique<GridSearch>(s); }},
      {{"lr_sweep", "the learning-rate list at one batch size", lr_stage},
       // lr_points (default 5): rates log-spaced over the range when the space has no list; start_near
       // (default 0: every rate in order): a unimodal walk from the listed rate nearest it (LrSweepOptions).
       {"lr_points", "start_near"},
       make_lr_sweep},
      {{"random", "seeded random batch sizes and log-uniform learning rates", both_stages},
       RandomSearch::option_names(),
       [](const TunerSpace& s, uint64_t seed) { return std::make_unique<RandomSearch>(s, seed); }},
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
  check_option_names(space, name, entry.options);
  if (!tuner_supports(name, space.objective))
    throw std::invalid_argument("tuner '" + name + "' cannot run a " + to_string(space.objective) +
                                " stage: it serves " + to_string(entry.info.objectives.front()) + " only");
  return std::make_unique<TrialCap>(entry.make(space, seed), space.max_trials);
}

}  // namespace tune
