#include "trial/observer_overhead.h"

#include <regex>

#include "util/table_format.h"

namespace tune {

std::string graph_counts(const std::string& compile_info) {
  static const std::regex counts(R"((graphs \d+, graph breaks \d+)(, frames compiled \d+)?(, recompiles after the first step \d+)?)");
  std::smatch m;
  if (!std::regex_search(compile_info, m, counts)) return "";
  return m[1].str() + m[3].str();
}

namespace {

ObserverOverhead overhead_of(const PairedPart& bare, const PairedPart& observed) {
  ObserverOverhead o;
  o.backend = observed.backend;
  o.observer = observed.observer;
  o.summary = observed.observer_summary;
  o.caveat = observed.observer_caveat;
  o.graphs_bare = graph_counts(bare.compile_info);
  o.graphs_observed = graph_counts(observed.compile_info);
  o.status = observed.ok() ? "ok" : to_string(observed.status) + " at " + observed.error_stage + ": " +
                                        observed.error_message.substr(0, 300);
  o.step_time = paired_ratio(round_ratios(observed.block_times, bare.block_times), 0.95);
  return o;
}

std::string percent(double ratio) { return strf("%+.0f%%", (ratio - 1) * 100); }

}  // namespace

std::vector<ObserverOverhead> observer_overheads(const TrialResult& paired) {
  std::vector<ObserverOverhead> found;
  if (paired.paired.empty() || !paired.paired.front().ok()) return found;
  for (size_t i = 1; i < paired.paired.size(); ++i)
    if (!paired.paired[i].observer.empty()) found.push_back(overhead_of(paired.paired.front(), paired.paired[i]));
  return found;
}

std::string observer_verdict(const ObserverOverhead& o) {
  switch (o.step_time.verdict) {
    case PairedVerdict::faster: return "slower";  // paired_ratio's "faster" is a ratio above 1: here, a longer step
    case PairedVerdict::slower: return "faster";
    case PairedVerdict::no_difference: return "no difference";
    case PairedVerdict::unconfirmed: return "unconfirmed";
  }
  return "unconfirmed";
}

std::string describe_observer_cost(const ObserverOverhead& o) {
  const PairedRatio& p = o.step_time;
  std::string text;
  if (o.status != "ok" && p.rounds < 2) {
    text = o.status;
  } else if (p.rounds < 2) {
    text = strf("%s step time in %d round, no interval: unconfirmed", percent(p.ratio).c_str(), p.rounds);
  } else {
    const std::string interval = strf("95%% CI %s to %s, %d paired rounds", percent(p.ci_low).c_str(),
                                      percent(p.ci_high).c_str(), p.rounds);
    text = p.verdict == PairedVerdict::no_difference
               ? "no difference within the noise (" + percent(p.ratio) + ", " + interval + ")"
               : percent(p.ratio) + " step time (" + interval + ")";
    if (o.status != "ok") text += "; then " + o.status;
  }
  if (!o.caveat.empty()) text += "; " + o.caveat;
  if (!o.graphs_observed.empty() && o.graphs_observed != o.graphs_bare)
    text += "; compiled graph changed: " + o.graphs_bare + " -> " + o.graphs_observed;
  else if (!o.graphs_observed.empty())
    text += "; compiled graph unchanged (" + o.graphs_observed + ")";
  return text;
}

}  // namespace tune
