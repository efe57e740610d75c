// Names of the stored stop reasons, both ways (an unknown name in a database is an error naming it), and the
// one rule that says what limited a batch search's choice.
#include "common/stop_reasons.h"

#include <algorithm>

#include <stdexcept>

namespace tune {

std::string to_string(StopCause cause) {
  switch (cause) {
    case StopCause::strategy: return "strategy";
    case StopCause::trial_cap: return "max_trials";
    case StopCause::budget: return "budget";
    case StopCause::reused: return "reused";
  }
  return "strategy";
}

StopCause parse_stop_cause(const std::string& text) {
  for (auto cause : {StopCause::strategy, StopCause::trial_cap, StopCause::budget, StopCause::reused})
    if (to_string(cause) == text) return cause;
  throw std::invalid_argument("stop cause '" + text + "': expected strategy, max_trials, budget or reused");
}

std::string to_string(BatchLimit limit) {
  switch (limit) {
    case BatchLimit::memory: return "memory";
    case BatchLimit::range: return "range";
    case BatchLimit::throughput: return "throughput";
    case BatchLimit::failure: return "failure";
    case BatchLimit::budget: return "budget";
    case BatchLimit::trials: return "trials";
  }
  return "budget";
}

StopReasons batch_limit_of(const std::vector<BatchTrial>& trials, int chosen, bool capped, BatchLimit otherwise) {
  const BatchTrial* oom = nullptr;
  const BatchTrial* failed = nullptr;
  bool larger_ran = false;
  const auto smaller = [](const BatchTrial& t, const BatchTrial* than) { return !than || t.batch_size < than->batch_size; };
  for (const auto& t : trials) {
    if (t.batch_size <= chosen) continue;
    if (t.status == TrialStatus::ok) larger_ran = true;
    else if (t.status == TrialStatus::oom) oom = smaller(t, oom) ? &t : oom;
    else failed = smaller(t, failed) ? &t : failed;
  }
  StopReasons r;
  r.batch_limit = oom ? BatchLimit::memory
                : capped ? BatchLimit::range
                : larger_ran ? BatchLimit::throughput
                : failed ? BatchLimit::failure
                : otherwise;
  if (const BatchTrial* limit = oom ? oom : r.batch_limit == BatchLimit::failure ? failed : nullptr) {
    r.limit_batch_size = limit->batch_size;
    r.limit_status = limit->status;
  }
  return r;
}

BatchLimit parse_batch_limit(const std::string& text) {
  for (auto limit : {BatchLimit::memory, BatchLimit::range, BatchLimit::throughput, BatchLimit::failure,
                     BatchLimit::budget, BatchLimit::trials})
    if (to_string(limit) == text) return limit;
  throw std::invalid_argument("batch limit '" + text + "': expected memory, range, throughput, failure, budget or trials");
}

std::string to_string(RateEdge edge) {
  switch (edge) {
    case RateEdge::above: return "above";
    case RateEdge::below: return "below";
    case RateEdge::none: break;
  }
  return "";
}

RateEdge parse_rate_edge(const std::string& text) {
  for (auto edge : {RateEdge::none, RateEdge::above, RateEdge::below})
    if (to_string(edge) == text) return edge;
  throw std::invalid_argument("rate edge '" + text + "': expected '', 'above' or 'below'");
}

RateEdge rate_edge_of(const std::vector<double>& rates_tried, double chosen) {
  if (rates_tried.empty()) return RateEdge::none;
  if (chosen >= *std::max_element(rates_tried.begin(), rates_tried.end())) return RateEdge::above;
  if (chosen <= *std::min_element(rates_tried.begin(), rates_tried.end())) return RateEdge::below;
  return RateEdge::none;
}

}  // namespace tune
