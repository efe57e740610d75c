// The side-by-side table (scripts/side-by-side, reports/side-by-side/table.md) from its store: per model x precision
// x backend, the fixed workload's step time, samples/s, compile parts, break-even steps against both eager
// baselines, and the loss agreement; rendered by its reporter (report/reporter.h), md.
//
// Break-even of a compiled backend against a baseline at the same batch: the steps N after which
// N * t_compiled + overhead < N * t_baseline, i.e. overhead / (t_baseline - t_compiled); "never" when not faster.
// Loss: the learning-rate trial's loss after its last step (same weights, batches and rate for every backend);
// dropout draws differ between C++ and Python and between eager and compiled, so agreement is within a tolerance.
#pragma once
#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "report/reporter.h"

namespace tune {

// The side-by-side workload's sequence length (configs/side-by-side.yaml): other studies in the store are left out.
constexpr int kSideBySideSeqLen = 128;

struct SideBySideTrial {
  std::string status;
  nlohmann::json result;  // the trial's result.json as stored
};

// (model, precision, backend) -> purpose ("throughput", "learning_rate") -> that study's last trial of it.
struct SideBySideStore {
  std::map<std::tuple<std::string, std::string, std::string>, std::map<std::string, SideBySideTrial>> cells;
};

// From a `tune export` document (store/export.h).
SideBySideStore side_by_side_from_export(const nlohmann::json& export_doc);
// From the store at `path`; throws std::invalid_argument naming a path that holds no file.
SideBySideStore read_side_by_side_store(const std::string& path);

// md.
ReporterList<SideBySideStore> side_by_side_reporters();

}  // namespace tune
