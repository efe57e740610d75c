// The regression set `tune regress` measures (configs/ci.yaml): models, backends, paired-trial shape, repeats,
// and the thresholds it decides with. The same settings are recorded with a reference, to refuse mismatches.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trial/backend_registry.h"

namespace tune {

struct RegressionThresholds {
  double min_effect = 0.05;         // smallest relative speedup change that can fail CI
  double significance = 0.01;       // alpha of the two-sided test; the interval has coverage 1 - alpha
  double loss_tolerance = 1e-3;     // |loss now - loss then| after the same seeded steps, same instance
  // The same on another instance: its CPU kernels round differently (another vector width, another
  // reduction order), and training steps carry the difference forward.
  double other_instance_loss_tolerance = 1e-2;
  double absolute_max_drop = 0.5;   // throughput drop that fails CI on its own (same instance only)
};

struct RegressionConfig {
  std::vector<std::string> models;
  std::string native_backend = kNativeBackend;
  std::vector<std::string> compiled_backends = in_process_compilers_on("cpu");  // what a paired trial runs on a CPU
  std::string precision = "fp32";
  int seq_len = 32;
  int batch_size = 8;
  int threads = 1;
  std::string step_clock = "cpu";   // TrialSpec::step_clock: cpu (process CPU time) or wall
  std::string corpus = "";          // TrialSpec::corpus_path ("" the default corpus, "synthetic" random ids)
  double learning_rate = 1e-3;
  uint64_t seed = 0;
  int warmup_steps = 3;
  int rounds = 32;                  // paired blocks per backend in each trial process (A B, B A, ...)
  int block_steps = 4;              // steps per block; the loss after warmup + rounds * block_steps is compared
  int repeats = 8;                  // trial processes per model, each one sample of each speedup
  // Also time the calibration workload (trial/calibration_step.h) in each process: the native backend's speed
  // relative to it gates a native slowdown, which the speedups alone would read as an improvement.
  bool calibration = true;
  double trial_timeout_seconds = 120;
  RegressionThresholds thresholds;

  std::vector<std::string> backends() const;  // native first, then the compiled ones
  std::vector<std::string> measured_backends() const;  // backends(), then the calibration workload when on
  // What a reference must share with a current run to be comparable (not the thresholds or repeats).
  nlohmann::json measurement_settings() const;
};

// Reads the YAML; absent keys keep their defaults. Throws std::invalid_argument naming the file, key and
// what was expected (a model list that is empty, repeats below 2, thresholds out of range...).
RegressionConfig load_regression_config(const std::string& yaml_path);
std::string default_regression_config_path();  // configs/ci.yaml

}  // namespace tune
