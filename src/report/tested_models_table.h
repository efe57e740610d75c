// The tested-models table's data, gathered from the store: one row per model x libtorch x instance x
// precision x sequence length, each backend's best config with the trials behind it. Writers only render it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/amortization.h"
#include "store/database.h"

namespace tune {

constexpr int kTableJsonSchemaVersion = 3;  // 3: instance parts, batch limits, curves, trial counts and dates

// What ended the batch-size search, read from the study's throughput trials.
enum class BatchLimit {
  memory,      // a larger batch ran out of memory
  range,       // the largest size of the search range fit and was still the fastest ("largest tested")
  throughput,  // a larger batch ran but was not faster
  failure,     // a larger batch failed otherwise (timeout, crash): the limit is unknown
  budget,      // the ramp ran out of time before any of the above
};
std::string to_string(BatchLimit limit);

struct BatchPoint {
  int batch_size = 0;
  TrialStatus status = TrialStatus::ok;
  double samples_per_second = 0;  // 0 unless ok
  int64_t peak_memory_bytes = 0;
};

struct LearningRatePoint {
  double learning_rate = 0;
  TrialStatus status = TrialStatus::ok;
  double score_loss = 0;  // mean loss of the last steps; meaningless unless ok
};

// One backend's result in a row: its best config, why its batch stopped, and the curves behind it.
struct BackendResult {
  std::string backend;
  BestConfig best;
  BatchLimit batch_limit = BatchLimit::budget;
  int limit_batch_size = 0;             // the batch that ran out of memory or failed (memory, failure)
  TrialStatus limit_status = TrialStatus::ok;
  std::vector<BatchPoint> batch_curve;  // throughput trials, by batch size
  std::vector<LearningRatePoint> lr_curve;  // learning-rate trials at the chosen batch, by rate
  int64_t memory_limit_bytes = 0;       // what a trial was allowed to use (0: no cap)
};

// The instance fingerprint's parts ("cpu:NAME|7.8 GiB|2 threads|x1").
struct InstanceParts {
  std::string name;         // instance or profile name
  std::string device;       // cpu, cuda
  std::string device_name;  // CPU model or GPU name
  std::string memory;       // "7.8 GiB"
  int threads = 0;
  int count = 1;
  std::string fingerprint;
};
InstanceParts parse_instance(const std::string& name, const std::string& fingerprint);
// "cpu (1x Intel Xeon, 2 threads, 7.8 GiB)", in the vendor table's style.
std::string describe_instance(const InstanceParts& instance);

struct TableRow {
  std::string model;
  std::string libtorch_version;
  std::string tune_version;
  InstanceParts instance;
  std::string precision;
  std::string step_options;
  int seq_len = 0;
  std::vector<BackendResult> backends;  // eager first, then by name
  std::optional<size_t> native;         // index of eager in backends
  std::optional<size_t> compiled;       // index of the fastest compiled backend
  Amortization amortization;            // compiled over native; zero without both
  int trials_run = 0;                   // over every backend of the row
  std::string first_trial_at;           // ISO times of the row's first and last finished trial
  std::string last_trial_at;

  const BackendResult* native_result() const { return native ? &backends[*native] : nullptr; }
  const BackendResult* compiled_result() const { return compiled ? &backends[*compiled] : nullptr; }
};

struct TestedModelsTable {
  std::string source;  // the database it was read from, as the user named it
  std::vector<TableRow> rows;
};

// The batch ramp's rule (configs/search.yaml): a doubling must gain this share of samples/s to go on.
constexpr double kDefaultMinThroughputGain = 0.05;

// Reads every study with a best config; studies differing only in backend share a row.
TestedModelsTable gather_tested_models(const Database& db, const std::string& source,
                                       double min_throughput_gain = kDefaultMinThroughputGain);

// Derives the batch limit from a study's throughput trials and its best config. When no larger size ran,
// a best size that gained less than min_throughput_gain over the next smaller one ended the ramp by
// throughput; one that was still gaining was cut short (budget or trial cap).
void classify_batch_limit(BackendResult& result, const std::vector<StoredTrial>& trials,
                          double min_throughput_gain = kDefaultMinThroughputGain);

// Cumulative wall time after `steps` compiled-sized steps: native, and compiled with its overhead.
double native_seconds_at(const TableRow& row, double steps);
double compiled_seconds_at(const TableRow& row, double steps);

}  // namespace tune
