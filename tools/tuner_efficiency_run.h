// The tuner efficiency benchmark's per-run report (scripts/tuner-efficiency: reports/tuner-efficiency/
// MODEL-sSEED.{md,json}): per strategy the config it chose, its time to the target loss, its regret against the
// exhaustive grid's best and its cost against the grid's. Its data is its JSON document (schema_version 2), made
// from a run's work folder; its reporters (report/reporter.h), md and json, render that document, so a committed
// JSON renders its committed markdown again.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/reporter.h"

namespace tune {

using OrderedJson = nlohmann::ordered_json;

// The goal on the medians: regret at most 3% at at most 25% of the grid's trial time.
constexpr double kGoalRegret = 0.03;
constexpr double kGoalCostShare = 0.25;

struct TunerEfficiencyRun {
  OrderedJson doc;  // the report as its JSON holds it, keys in the order they are written
};

// What the per-run report is made from besides the work folder: how it was called and where it ran.
struct TunerEfficiencyRunSource {
  std::string work;      // the run's folder: times.txt, load.txt, clock.txt, and per run KEY.json, KEY.log, KEY.db
  std::string settings;  // the settings file the strategies ran with
  std::string model;
  int seed = 0;
  std::string command;   // the command that reproduces it
  std::string date;      // "2026-12-02 16:24 UTC"
  OrderedJson machine;   // {"cpu", "cores", "host", "commit"}: this_machine()
};

// Reads the work folder; throws std::invalid_argument naming a file it cannot read.
TunerEfficiencyRun tuner_efficiency_run(const TunerEfficiencyRunSource& source);
// This machine's CPU, cores and host, and the checkout's commit (noting changes not yet committed).
OrderedJson this_machine();
// A written report (MODEL-sSEED.json); throws std::invalid_argument naming the file when it cannot be read.
TunerEfficiencyRun read_tuner_efficiency_run(const std::string& path);

// md (the settings path shown relative to the current folder) and json, in that order.
ReporterList<TunerEfficiencyRun> tuner_efficiency_run_reporters();
// The markdown with the settings path shown relative to `settings_base` (a committed report: the checkout it ran in).
std::unique_ptr<Reporter<TunerEfficiencyRun>> make_tuner_efficiency_run_markdown(std::filesystem::path settings_base);

// Shared with the summary (tools/tuner_efficiency_summary.h).
// A number of a report (null, as a NaN load figure is written, reads as NaN).
double number(const OrderedJson& value);
// "+5.0%" for 0.05, "–" for null.
std::string percent(const OrderedJson& value);
// Python's statistics.median: the middle value as it is (an integer stays one), or the mean of the two middle ones.
OrderedJson median_of(std::vector<OrderedJson> values);
// The trials that reached the target at a batch the clock has, each with seconds_on_clock: its steps to the
// target x the clock's step time at that batch (the judge's clock puts every choice on one clock).
std::vector<OrderedJson> on_clock(const OrderedJson& trials, const std::map<int, double>& clock);
// A report's clock_step_seconds as batch -> seconds.
std::map<int, double> clock_of(const OrderedJson& report);
// The JSON as the Python scripts wrote it: two-space indent, non-ASCII escaped, no newline at the end.
std::string python_json_text(const OrderedJson& doc);
// A value as Python's str() writes it in a report: integers plain, text as is.
std::string plain(const OrderedJson& value);
// object[key], or `fallback` when the object lacks it (Python's dict.get).
OrderedJson get_or(const OrderedJson& object, const char* key, OrderedJson fallback = nullptr);
// "8 @ 2.00e-03, none": a strategy's choice per run.
std::string choices_cell(const OrderedJson& choices);

}  // namespace tune
