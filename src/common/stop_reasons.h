// Why a study's searches ended, in the words the store keeps with its best config: what limited the batch
// size, and what ended each stage. The engine writes them as it searches; reports read them, never re-derive.
#pragma once
#include <string>
#include <vector>

#include "common/trial_status.h"

namespace tune {

// What ended a search loop: the strategy itself, its trial cap, or the time budget; for a learning-rate search,
// also that none ran: another backend's rate reused after one trial checked it (engine/rate_stage.cpp).
enum class StopCause { strategy, trial_cap, budget, reused };
std::string to_string(StopCause cause);  // "strategy", "max_trials", "budget", "reused"
// Throws std::invalid_argument quoting text that is none of those.
StopCause parse_stop_cause(const std::string& text);

// What limited the chosen batch size.
enum class BatchLimit {
  memory,      // a larger batch ran out of memory
  range,       // the largest size of the search range fit and was still the fastest ("largest tested")
  throughput,  // a larger batch was not faster, or the strategy ended on flat throughput
  failure,     // a larger batch failed otherwise (timeout, crash): the limit is unknown
  budget,      // the time budget ended the batch search before any of the above
  trials,      // the batch strategy's trial cap (max_trials) ended it first
};
std::string to_string(BatchLimit limit);
// Throws std::invalid_argument quoting text that is no BatchLimit name.
BatchLimit parse_batch_limit(const std::string& text);

// Where the chosen learning rate was left: found (inside the rates tried), or at the top ("above": a larger rate
// may be better) or bottom ("below") of them, when the search could not go on past it (its bound, the budget).
enum class RateEdge { none, above, below };
std::string to_string(RateEdge edge);  // "", "above", "below"
// Throws std::invalid_argument quoting text that is none of those.
RateEdge parse_rate_edge(const std::string& text);
// The end of `rates_tried` (at the chosen batch, any status) that `chosen` sits on: above when it is the largest
// (a single rate too), below when the smallest, else none. The engine's rule and schema 4's backfill.
RateEdge rate_edge_of(const std::vector<double>& rates_tried, double chosen);

struct StopReasons {
  BatchLimit batch_limit = BatchLimit::budget;
  int limit_batch_size = 0;                    // the batch that ran out of memory or failed (memory, failure)
  TrialStatus limit_status = TrialStatus::ok;  // its status
  std::string batch_stop;                      // the batch search's stop reason, as printed
  StopCause lr_cause = StopCause::strategy;
  std::string lr_stop;                         // the learning-rate search's stop reason, as printed
  RateEdge lr_edge = RateEdge::none;           // the chosen rate at an end of those tried (not found)
  // Steps each learning-rate trial trained (the horizon rates were ranked at) and the steps the settings (or the
  // job's length) asked for: fewer when the budget cut the horizon. 0: stored before schema 5, or no rate search.
  int lr_horizon_steps = 0;
  int lr_horizon_wanted = 0;
};

// A throughput trial of a batch search, as the batch-limit rule reads it.
struct BatchTrial {
  int batch_size = 0;
  TrialStatus status = TrialStatus::ok;
};

// What limited the `chosen` batch: a larger size out of memory (the smallest such), else the range's end
// (`capped`), else a larger size that ran and was not faster, else a larger size that failed otherwise (the
// smallest), else `otherwise`: what ended the search, as the caller knows it. Memory outranks the rest: a
// bisecting search may also have run larger sizes that were slower. Fills the limit fields only.
StopReasons batch_limit_of(const std::vector<BatchTrial>& trials, int chosen, bool capped, BatchLimit otherwise);

}  // namespace tune
