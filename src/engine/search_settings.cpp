// Reads configs/search.yaml into SearchSettings, with errors naming file, key and expected type.
// Durations accept "20m"-style text (util/duration).
#include "engine/search_settings.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <stdexcept>

#include "util/duration.h"
#include "util/paths.h"
#include "util/yaml_fields.h"

namespace tune {
namespace {

void read_duration(const YAML::Node& root, const char* key, double& out, const std::string& file) {
  std::string text;
  read_yaml_key(root, key, text, file);
  if (text.empty()) return;
  try {
    out = parse_duration_seconds(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(file + ": key '" + key + "': " + e.what());
  }
}

}  // namespace

std::string default_search_settings_path() { return (std::filesystem::path(configs_dir()) / "search.yaml").string(); }

SearchSettings load_search_settings(const std::string& file) {
  const YAML::Node root = load_yaml_file(file);
  SearchSettings s;
  read_duration(root, "budget", s.budget_seconds, file);
  read_yaml_key(root, "max_batch_size", s.max_batch_size, file);
  read_yaml_key(root, "min_throughput_gain", s.min_throughput_gain, file);
  read_yaml_key(root, "ramp_learning_rate", s.ramp_learning_rate, file);
  read_yaml_key(root, "learning_rates", s.learning_rates, file);
  read_yaml_key(root, "warmup_steps", s.warmup_steps, file);
  read_yaml_key(root, "min_measure_steps", s.min_measure_steps, file);
  read_yaml_key(root, "max_measure_steps", s.max_measure_steps, file);
  read_duration(root, "measure_time", s.measure_seconds, file);
  read_yaml_key(root, "ci_halfwidth", s.ci_halfwidth, file);
  if (s.ci_halfwidth <= 0 || s.ci_halfwidth >= 1)
    throw std::invalid_argument(file + ": key 'ci_halfwidth': expected a share between 0 and 1, got " +
                                std::to_string(s.ci_halfwidth));
  read_yaml_key(root, "lr_train_steps", s.lr_train_steps, file);
  read_yaml_key(root, "batch_tuner", s.batch_tuner, file);
  read_yaml_key(root, "lr_tuner", s.lr_tuner, file);
  read_yaml_key(root, "max_trials", s.max_trials, file);
  read_yaml_key(root, "ramp_budget_share", s.ramp_budget_share, file);
  read_duration(root, "trial_timeout", s.trial_timeout_seconds, file);
  read_yaml_key(root, "memory_fraction", s.memory_fraction, file);
  if (s.learning_rates.empty()) throw std::invalid_argument(file + ": key 'learning_rates': expected at least one value");
  return s;
}

}  // namespace tune
