// Stage objectives: names, the usable-result rule, the best trial of a list and regret.
// Failed and non-finite results are never usable, whatever the strategy.
#include "tuners/objective.h"

#include <cmath>
#include <stdexcept>

namespace tune {

std::string to_string(StageObjective objective) {
  return objective == StageObjective::throughput ? "throughput" : "loss";
}

StageObjective parse_stage_objective(const std::string& text) {
  if (text == "throughput") return StageObjective::throughput;
  if (text == "loss") return StageObjective::loss;
  throw std::invalid_argument("unknown stage objective '" + text + "': expected throughput or loss");
}

bool is_usable(const TrialResult& result, StageObjective objective) {
  if (!result.ok()) return false;
  if (objective == StageObjective::throughput) return std::isfinite(result.samples_per_second) && result.samples_per_second > 0;
  return std::isfinite(result.score_loss);
}

double objective_value(const TrialResult& result, StageObjective objective) {
  return objective == StageObjective::throughput ? result.samples_per_second : -result.score_loss;
}

std::optional<ToldTrial> best_trial(const std::vector<ToldTrial>& told, StageObjective objective) {
  std::optional<ToldTrial> best;
  for (const auto& entry : told)
    if (is_usable(entry.second, objective) &&
        (!best || objective_value(entry.second, objective) > objective_value(best->second, objective)))
      best = entry;
  return best;
}

double regret(double chosen, double best, Better better) {
  return better == Better::lower ? chosen / best - 1 : 1 - chosen / best;
}

double regret(const TrialResult& chosen, const TrialResult& best, StageObjective objective) {
  if (objective == StageObjective::throughput)
    return regret(chosen.samples_per_second, best.samples_per_second, Better::higher);
  return regret(chosen.score_loss, best.score_loss, Better::lower);
}

}  // namespace tune
