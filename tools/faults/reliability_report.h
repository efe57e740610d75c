// The reliability report (reports/reliability.{md,json}): the fault matrix's rows, the bad-input table and, when
// given scripts/sanitize's fuzz-summary.json, the fuzzing run's figures per target; rendered by its reporters
// (report/reporter.h), md and json.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/reporter.h"
#include "tools/faults/bad_inputs.h"
#include "tools/faults/fault_cases.h"

namespace tune::faults {

// 2: the fuzzing section ("fuzzing": null when the report was made without a fuzzing run's figures).
constexpr int kReliabilitySchemaVersion = 2;
// scripts/sanitize's build-sanitize/fuzz-summary.json.
constexpr int kFuzzSummarySchemaVersion = 1;

// One libFuzzer target's run, from its log's last status line (a figure the log lacks is unset).
struct FuzzTarget {
  std::string target;
  int seconds = 0;
  std::optional<int64_t> executions, edges, features;
  std::string corpus;  // inputs/size, as libFuzzer prints it ("52/3Kb")
  int crashes = 0;     // 0 when the run passed; libFuzzer stops at its first crash
};

struct FuzzFigures {
  std::string date;    // when scripts/sanitize ran ("2026-12-03 17:21 UTC")
  int seconds_per_target = 0;
  int seed = 0;        // libFuzzer's -seed
  std::vector<FuzzTarget> targets;
};

// Reads scripts/sanitize's fuzz summary; throws std::invalid_argument naming the file and what it lacks.
FuzzFigures read_fuzz_summary(const std::string& path);

struct ReliabilityAbout {
  std::string date;
  std::string machine;
  std::string tune_version;
  int seed = 0;           // draws the kill moments
  int wall_seconds = 0;
};

struct ReliabilityReport {
  ReliabilityAbout about;
  std::vector<FaultRow> faults;
  std::vector<BadInputRow> bad_inputs;
  std::optional<FuzzFigures> fuzzing;
};

// md and json, in that order.
ReporterList<ReliabilityReport> reliability_reporters();

}  // namespace tune::faults
