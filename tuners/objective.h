// What a search stage optimises: throughput (samples/s, higher is better) or loss (score_loss, lower).
// One place decides which of two results is better, so no strategy can pick a failed trial.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tuners/tuner.h"

namespace tune {

enum class StageObjective { throughput, loss };

std::string to_string(StageObjective objective);
// Throws std::invalid_argument quoting the text when it is neither "throughput" nor "loss".
StageObjective parse_stage_objective(const std::string& text);

using ToldTrial = std::pair<Candidate, TrialResult>;

// A result can win only when the trial succeeded and its score is finite.
bool is_usable(const TrialResult& result, StageObjective objective);
// The score to maximise: samples/s, or minus the score_loss.
double objective_value(const TrialResult& result, StageObjective objective);
// The best usable trial; ties keep the one told first.
std::optional<ToldTrial> best_trial(const std::vector<ToldTrial>& told, StageObjective objective);

}  // namespace tune
