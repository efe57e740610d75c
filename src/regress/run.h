// One measurement of the regression set: per model, `repeats` paired trial processes, each timing the native
// and compiled backends in alternating blocks (eager, jit, jit, eager, ...). Saved as JSON it is the CI reference.
#pragma once
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "instance/instance.h"
#include "regress/config.h"
#include "regress/sessions.h"
#include "trial/trial_result.h"  // TrialStatus and its JSON names

namespace tune {

// 2: paired trials (one process per repeat, every backend in it); speedups per repeat.
// 3: the recording sessions' relative speeds (sessions); a version 2 file reads as one session of its own.
constexpr int kRegressionRunSchema = 3;

struct BackendSamples {
  std::string backend;
  std::vector<double> step_times;  // median block step time of each repeat (process), seconds, in run order
  std::vector<double> speedups;    // compiled backends: each repeat's paired_speedup over the native backend
  std::vector<double> losses;      // loss after warmup + rounds * block_steps of each repeat (seeded: should not vary)
  TrialStatus status = TrialStatus::ok;  // the first failed trial's status; ok when none failed (JSON: "ok", ...)
  std::string error;               // that trial's stage, message and folder
  double inject_slowdown = 0;      // TEST ONLY; never in a reference
  bool ok() const { return status == TrialStatus::ok; }
};

struct ModelSamples {
  std::string model;
  std::vector<BackendSamples> backends;  // native first
  const BackendSamples* find(const std::string& backend) const;  // nullptr when absent
};

struct RegressionRun {
  int schema_version = kRegressionRunSchema;
  std::string created;               // UTC, ISO 8601
  std::string tune_version;
  std::string libtorch_version;
  std::string instance_fingerprint;  // throughput is compared as a gate only on the same instance
  nlohmann::json settings;           // RegressionConfig::measurement_settings()
  int repeats = 0;
  std::vector<ModelSamples> models;
  std::vector<ReferenceSession> sessions;  // every recording on this instance and settings, this one last
  const ModelSamples* find(const std::string& model) const;  // nullptr when absent
  bool all_ok() const;
};

// Where and how to run the trials; `inject_slowdown` maps a backend to a test-only slowdown share.
struct RegressionRunContext {
  Instance instance;
  std::string libtorch_version;
  std::string tune_executable;
  std::string runs_dir;  // one folder per trial (spec, log, result, command.sh)
  std::map<std::string, double> inject_slowdown;
  std::ostream* progress = nullptr;  // one line per trial when set
};

// The speedup of `compiled` over `native` in one paired trial: the median over rounds of native block time /
// compiled block time (rounds both ran). Each ratio compares blocks run back to back; the median is not
// moved by one disturbed block. 0 when no round holds both.
double paired_speedup(const std::vector<double>& native_blocks, const std::vector<double>& compiled_blocks);

// Runs config.repeats paired trials per model; a backend that fails is left out of the later ones (its status
// and error are kept); a failed native backend ends the model. Throws std::invalid_argument for an unknown model.
RegressionRun measure_regression_set(const RegressionConfig& config, const RegressionRunContext& context);

// Reads a reference written by write_regression_run. Throws std::invalid_argument naming the file when it
// is missing, not JSON, or of another schema version.
RegressionRun read_regression_run(const std::string& path);
void write_regression_run(const std::string& path, const RegressionRun& run);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BackendSamples, backend, step_times, speedups, losses, status,
                                                error, inject_slowdown)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ModelSamples, model, backends)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RegressionRun, schema_version, created, tune_version,
                                                libtorch_version, instance_fingerprint, settings, repeats, models,
                                                sessions)

}  // namespace tune
