// What a search stage optimises: throughput (samples/s, higher is better) or loss (score_loss, lower).
// One place decides which of two results is better, so no strategy can pick a failed trial, and one
// function says how far a choice falls short of the best (regret).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tuners/candidate.h"

namespace tune {

enum class StageObjective { throughput, loss };

std::string to_string(StageObjective objective);
// Throws std::invalid_argument quoting the text when it is neither "throughput" nor "loss".
StageObjective parse_stage_objective(const std::string& text);

// A result can win only when the trial succeeded and its score is finite.
bool is_usable(const TrialResult& result, StageObjective objective);
// The score to maximise: samples/s, or minus the score_loss.
double objective_value(const TrialResult& result, StageObjective objective);
// The best usable trial; ties keep the one told first.
std::optional<ToldTrial> best_trial(const std::vector<ToldTrial>& told, StageObjective objective);

// Which way a figure improves: samples/s higher, a loss or seconds to a target lower.
enum class Better { higher, lower };
// How far `chosen` falls short of `best`, as a share of the best: 0 when equal, > 0 when worse,
// < 0 when the choice beat the reference it is judged against.
double regret(double chosen, double best, Better better);
// The stage objective's regret of one result against another (both usable).
double regret(const TrialResult& chosen, const TrialResult& best, StageObjective objective);

}  // namespace tune
