// The regression verdicts: a current run of the regression set against the reference, metric by metric
// (compiled speedup over native, throughput, loss after N steps, trial failures), with the exit code CI uses.
#pragma once
#include <string>
#include <vector>

#include "regress/config.h"
#include "regress/run.h"

namespace tune {

struct RegressionLine {
  std::string model;
  std::string backend;
  std::string metric;          // "speedup" (gates), "throughput" (informative), "loss" (gates), "trial" (gates)
  double reference = 0;        // speedup x, samples/s, or loss
  double current = 0;
  double change = 0;           // relative for speedup and throughput, absolute for loss
  bool has_interval = false;   // speedup and throughput: a Moses interval of the relative change
  double ci_low = 0;
  double ci_high = 0;
  double p_value = 1;
  std::string verdict;         // ok | regression | improved | slower | faster | other instance
  std::string note;
  bool fails() const { return verdict == "regression"; }
};

struct RegressionReport {
  std::string reference_path;
  RegressionRun reference_header;  // the reference's metadata (its models are not repeated here)
  std::string current_created;
  std::string current_instance;
  RegressionConfig config;
  std::vector<RegressionLine> lines;
  std::vector<std::string> problems;  // why some or all of it could not be compared
  bool regression() const;
  // 1: a gating metric regressed; else 2: something could not run or be compared; else 0.
  int exit_code() const;
  std::string verdict() const;  // "REGRESSION", "could not run", "no regression"
};

// Why `reference` cannot serve for `config` (other measurement settings, a model or backend missing or
// failed); empty when it can. Checked before measuring so a stale reference costs no trial time.
std::vector<std::string> reference_problems(const RegressionRun& reference, const RegressionConfig& config);

// Compares every model and backend of `current` that the reference holds.
RegressionReport compare_runs(const RegressionRun& reference, const std::string& reference_path,
                              const RegressionRun& current, const RegressionConfig& config);

}  // namespace tune
