// What an observer trial (a paired trial of a step without and with a tool: trial/paired_trial.h) found: per
// observer, its step time over the bare step's in each round, their geometric mean with a 95% interval, the verdict
// (slower, or no difference within the noise), and what the tool did to a compiled step's graphs.
#pragma once
#include <string>
#include <vector>

#include "stats/paired_ratio.h"
#include "trial/trial_result.h"

namespace tune {

struct ObserverOverhead {
  std::string backend;
  std::string observer;
  PairedRatio step_time;  // observed over bare step time per round: 1.18 is 18% slower; its verdict "slower"
  std::string status;     // "ok", or the observed side's failure ("crashed at step: observer failed ...")
  std::string graphs_bare, graphs_observed;  // a compiled step's "graphs 2, graph breaks 0, recompiles ... 0"
  std::string summary;    // what the tool did (the observer's own line)
  std::string caveat;     // what it could not do on this step ("" when it did all of it)
};

// One entry per observer part of a paired trial's result (parts with an observer; the first part is the bare step).
// Nothing for a result without observer parts or whose bare step failed.
std::vector<ObserverOverhead> observer_overheads(const TrialResult& paired);

// The step with the tool: "slower" (the interval of the ratio above 1), "faster" (below), "no difference" (it holds
// 1), "unconfirmed" (under two rounds).
std::string observer_verdict(const ObserverOverhead& o);

// "+18% step time (95% CI +12% to +25%, 6 paired rounds)", "no difference within the noise (-2% to +3%, ...)",
// "unconfirmed: one round" or the failure; then the graph change where it has one ("graph breaks 0 -> 24").
std::string describe_observer_cost(const ObserverOverhead& o);

// "graphs 2, graph breaks 0, recompiles after the first step 0" from a torch.compile account (python_worker.py);
// empty for one without them (a libtorch backend's).
std::string graph_counts(const std::string& compile_info);

}  // namespace tune
