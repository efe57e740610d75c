// The tested-models comparison: per model x instance x precision x sequence length, the native
// (eager) best config beside the best compiled backend, with speed-up and break-even.
#pragma once
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/amortization.h"
#include "store/database.h"

namespace tune {

constexpr int kReportJsonSchemaVersion = 2;  // 2: step options, CI, FLOPs, MFU, every backend's best

struct ComparisonRow {
  StudyKey key;                         // of the native study (backend "eager") or the first seen
  std::optional<BestConfig> native;
  std::string compiled_backend;         // fastest compiled backend, empty when none
  std::optional<BestConfig> compiled;
  Amortization amortization;
  std::map<std::string, BestConfig> backends;  // every backend's best, by name (eager included)
  std::string updated_at;
};

// Groups best configs by model, instance, precision, sequence length and step options.
std::vector<ComparisonRow> comparison_rows(const std::vector<BestRow>& rows);

void write_comparison_markdown(std::ostream& out, const std::vector<ComparisonRow>& rows);
nlohmann::json comparison_json(const std::vector<ComparisonRow>& rows);

}  // namespace tune
