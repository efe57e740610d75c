// Reads configs/ci.yaml into a RegressionConfig, with errors naming the file, key and expected value.
// Ranges are checked here so a typo fails before any trial runs (exit 2), not as a strange verdict.
#include "regress/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "trial/backend_registry.h"
#include "util/paths.h"
#include "util/yaml_fields.h"

namespace tune {
namespace {

std::vector<std::string> read_names(const YAML::Node& root, const char* key, const std::string& file) {
  const YAML::Node node = root[key];
  if (!node) return {};
  if (!node.IsSequence()) throw std::invalid_argument(file + ": key '" + key + "': expected a list of names");
  std::vector<std::string> names;
  for (const auto& item : node) names.push_back(item.as<std::string>());
  return names;
}

void require(bool ok, const std::string& file, const std::string& key, const std::string& expected, double got) {
  if (!ok)
    throw std::invalid_argument(file + ": key '" + key + "': expected " + expected + ", got " + std::to_string(got));
}

void read_thresholds(const YAML::Node& node, RegressionThresholds& t, const std::string& file) {
  if (!node) return;
  check_known_keys(node,
                   {"min_effect", "significance", "loss_tolerance", "other_instance_loss_tolerance",
                    "absolute_max_drop"},
                   file, "thresholds.");
  read_yaml_key(node, "min_effect", t.min_effect, file, "thresholds.");
  read_yaml_key(node, "significance", t.significance, file, "thresholds.");
  read_yaml_key(node, "loss_tolerance", t.loss_tolerance, file, "thresholds.");
  read_yaml_key(node, "other_instance_loss_tolerance", t.other_instance_loss_tolerance, file, "thresholds.");
  read_yaml_key(node, "absolute_max_drop", t.absolute_max_drop, file, "thresholds.");
  require(t.min_effect > 0 && t.min_effect < 1, file, "thresholds.min_effect", "a share in (0, 1)", t.min_effect);
  require(t.significance > 0 && t.significance < 0.5, file, "thresholds.significance", "a level in (0, 0.5)",
          t.significance);
  require(t.loss_tolerance >= 0, file, "thresholds.loss_tolerance", "a non-negative number", t.loss_tolerance);
  require(t.other_instance_loss_tolerance >= t.loss_tolerance, file, "thresholds.other_instance_loss_tolerance",
          "a number at least loss_tolerance", t.other_instance_loss_tolerance);
  require(t.absolute_max_drop > 0 && t.absolute_max_drop < 1, file, "thresholds.absolute_max_drop",
          "a share in (0, 1)", t.absolute_max_drop);
}

void check_ranges(const RegressionConfig& c, const std::string& file) {
  if (c.models.empty()) throw std::invalid_argument(file + ": key 'models': expected at least one tested model");
  if (c.compiled_backends.empty())
    throw std::invalid_argument(file + ": key 'compiled_backends': expected at least one backend");
  const auto& compiled = c.compiled_backends;
  for (const auto& backend : c.backends())
    if (backend == kCalibrationBackend)
      throw std::invalid_argument(file + ": backend '" + backend + "' is the calibration workload: turn it on with "
                                  "'calibration: true' instead");
  if (std::find(compiled.begin(), compiled.end(), c.native_backend) != compiled.end())
    throw std::invalid_argument(file + ": backend '" + c.native_backend + "' is both native and compiled");
  require(c.repeats >= 4, file, "repeats", "at least 4 (fewer can never be significant)", c.repeats);
  require(c.rounds >= 1, file, "rounds", "at least 1", c.rounds);
  require(c.block_steps >= 1, file, "block_steps", "at least 1", c.block_steps);
  require(c.warmup_steps >= 1, file, "warmup_steps", "at least 1", c.warmup_steps);
  require(c.batch_size >= 1, file, "batch_size", "at least 1", c.batch_size);
  require(c.seq_len >= 1, file, "seq_len", "at least 1", c.seq_len);
  require(c.threads >= 0, file, "threads", "0 (libtorch's default) or more", c.threads);
  require(c.trial_timeout_seconds > 0, file, "trial_timeout_seconds", "a positive number", c.trial_timeout_seconds);
}

}  // namespace

std::vector<std::string> RegressionConfig::backends() const {
  std::vector<std::string> all{native_backend};
  all.insert(all.end(), compiled_backends.begin(), compiled_backends.end());
  return all;
}

std::vector<std::string> RegressionConfig::measured_backends() const {
  std::vector<std::string> all = backends();
  if (calibration) all.push_back(kCalibrationBackend);
  return all;
}

nlohmann::json RegressionConfig::measurement_settings() const {
  return {{"native_backend", native_backend}, {"precision", precision}, {"seq_len", seq_len},
          {"batch_size", batch_size}, {"threads", threads}, {"step_clock", step_clock}, {"corpus", corpus},
          {"learning_rate", learning_rate}, {"seed", seed}, {"warmup_steps", warmup_steps}, {"rounds", rounds},
          {"block_steps", block_steps}, {"calibration", calibration}};
}

std::string default_regression_config_path() { return (std::filesystem::path(configs_dir()) / "ci.yaml").string(); }

RegressionConfig load_regression_config(const std::string& file) {
  const YAML::Node root = load_yaml_file(file);
  check_known_keys(root, {"models", "native_backend", "compiled_backends", "precision", "seq_len", "batch_size",
                          "threads", "step_clock", "corpus", "learning_rate", "seed", "warmup_steps", "rounds",
                          "block_steps", "repeats", "calibration", "trial_timeout_seconds", "thresholds"}, file);
  RegressionConfig c;
  c.models = read_names(root, "models", file);
  read_yaml_key(root, "native_backend", c.native_backend, file);
  if (root["compiled_backends"]) c.compiled_backends = read_names(root, "compiled_backends", file);
  read_yaml_key(root, "precision", c.precision, file);
  read_yaml_key(root, "seq_len", c.seq_len, file);
  read_yaml_key(root, "batch_size", c.batch_size, file);
  read_yaml_key(root, "threads", c.threads, file);
  read_yaml_key(root, "step_clock", c.step_clock, file);
  if (c.step_clock != "cpu" && c.step_clock != "wall")
    throw std::invalid_argument(file + ": key 'step_clock': expected cpu or wall, got '" + c.step_clock + "'");
  read_yaml_key(root, "corpus", c.corpus, file);
  read_yaml_key(root, "learning_rate", c.learning_rate, file);
  int seed = 0;
  read_yaml_key(root, "seed", seed, file);
  c.seed = static_cast<uint64_t>(seed);
  read_yaml_key(root, "warmup_steps", c.warmup_steps, file);
  read_yaml_key(root, "rounds", c.rounds, file);
  read_yaml_key(root, "block_steps", c.block_steps, file);
  read_yaml_key(root, "repeats", c.repeats, file);
  read_yaml_key(root, "calibration", c.calibration, file);
  read_yaml_key(root, "trial_timeout_seconds", c.trial_timeout_seconds, file);
  read_thresholds(root["thresholds"], c.thresholds, file);
  check_ranges(c, file);
  return c;
}

}  // namespace tune
