// Reads configs/search.yaml into SearchSettings, with errors naming file, key and expected type.
// Durations accept "20m"-style text (util/duration).
#include "engine/search_settings.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <stdexcept>

#include "util/duration.h"
#include "util/paths.h"

namespace tune {
namespace {

template <typename T>
void read(const YAML::Node& root, const char* key, T& out, const std::string& file, const char* expected) {
  if (!root[key]) return;
  try {
    out = root[key].as<T>();
  } catch (const YAML::Exception&) {
    throw std::invalid_argument(file + ":" + std::to_string(root[key].Mark().line + 1) + ": key '" + key +
                                "': expected " + expected);
  }
}

void read_duration(const YAML::Node& root, const char* key, double& out, const std::string& file) {
  std::string text;
  read(root, key, text, file, "a duration such as '20m'");
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
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw std::invalid_argument("search settings '" + file + "' cannot be read");
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(file + ": invalid YAML: " + e.what());
  }
  SearchSettings s;
  read_duration(root, "budget", s.budget_seconds, file);
  read(root, "max_batch_size", s.max_batch_size, file, "an integer");
  read(root, "min_throughput_gain", s.min_throughput_gain, file, "a number");
  read(root, "ramp_learning_rate", s.ramp_learning_rate, file, "a number");
  read(root, "learning_rates", s.learning_rates, file, "a list of numbers");
  read(root, "warmup_steps", s.warmup_steps, file, "an integer");
  read(root, "min_measure_steps", s.min_measure_steps, file, "an integer");
  read(root, "max_measure_steps", s.max_measure_steps, file, "an integer");
  read_duration(root, "measure_time", s.measure_seconds, file);
  read(root, "lr_train_steps", s.lr_train_steps, file, "an integer");
  read(root, "ramp_budget_share", s.ramp_budget_share, file, "a number");
  read_duration(root, "trial_timeout", s.trial_timeout_seconds, file);
  read(root, "memory_fraction", s.memory_fraction, file, "a number");
  if (s.learning_rates.empty()) throw std::invalid_argument(file + ": key 'learning_rates': expected at least one value");
  return s;
}

}  // namespace tune
