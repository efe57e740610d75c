// The tuner efficiency benchmark's summary (scripts/tuner-efficiency: reports/tuner-efficiency.{md,json}) over
// families and seeds: per run the grid's best and each strategy's regret and cost, medians per family and overall
// against the goal, the noise floor from identical grid reruns, the seed floor (one seed's best on another seed's
// grid), and the default ladder's regret per start batch replayed on each grid. Made from the per-run reports
// (tools/tuner_efficiency_run.h) and their -replay.md tables; rendered by its reporters (report/reporter.h), md and json.
#pragma once
#include <string>

#include "tools/tuner_efficiency_run.h"

namespace tune {

struct TunerEfficiencySummary {
  OrderedJson doc;  // the summary as its JSON holds it (schema tune-tuner-efficiency-summary, version 2)
};

// From the folder of MODEL-sSEED.json reports and their MODEL-sSEED-replay.md; throws std::invalid_argument naming
// the folder when it holds no report, or a report that cannot be read.
TunerEfficiencySummary tuner_efficiency_summary(const std::string& reports_dir);

// md and json, in that order.
ReporterList<TunerEfficiencySummary> tuner_efficiency_summary_reporters();

}  // namespace tune
