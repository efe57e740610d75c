// Reads configs/search.yaml into SearchSettings, with errors naming file, key and expected type.
// Durations accept "20m"-style text (util/duration).
#include "engine/search_settings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "instance/instance.h"
#include "trial/lr_schedule.h"
#include "tuners/tuner_registry.h"
#include "util/duration.h"
#include "util/join.h"
#include "util/paths.h"
#include "util/yaml_fields.h"

namespace tune {
namespace {

// tuner_options: a map from strategy name (a registered one) to a map of option values (numbers); option names
// are checked when the strategy is built (make_tuner names an option it does not declare).
void read_tuner_options(const YAML::Node& root, const std::string& file,
                        std::map<std::string, std::map<std::string, double>>& out) {
  const YAML::Node node = root["tuner_options"];
  if (!node) return;
  if (!node.IsMap()) throw std::invalid_argument(file + ": key 'tuner_options': expected a map of strategy -> options");
  for (const auto& strategy : node) {
    const std::string name = yaml_key_name(strategy.first, file);
    const auto names = tuner_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw std::invalid_argument(file + ": key 'tuner_options." + name + "': no strategy '" + name +
                                  "': expected one of " + join(names));
    if (!strategy.second.IsMap())
      throw std::invalid_argument(file + ": key 'tuner_options." + name + "': expected a map of option -> number");
    for (const auto& option : strategy.second) {
      const std::string key = yaml_key_name(option.first, file);
      read_yaml_key(strategy.second, key, out[name][key], file, "tuner_options." + name + ".");
    }
  }
}

// Every key a settings file may hold: a mistyped one (max_batchsize) is an error, never a silent default.
const std::vector<std::string> kSettingsKeys = {
    "budget", "min_batch_size", "max_batch_size", "gpu_max_batch_size", "tuner_options", "ramp_learning_rate",
    "learning_rates", "pretrained_learning_rates", "learning_rate_edge_factor", "learning_rate_bounds",
    "warmup_steps", "min_measure_steps", "max_measure_steps", "measure_time", "ci_halfwidth", "lr_train_steps",
    "lr_max_train_steps", "lr_transfer", "lr_reuse", "seed_check", "confirm_rounds", "confirm_budget_share", "confirm_measure_time", "lr_schedule",
    "lr_warmup_share", "held_out_share", "batch_tuner", "lr_tuner", "max_trials",
    "ramp_budget_share", "compiled_ramp_from_native", "screen_batch_size", "screen_keep_share", "screen_budget_share", "trial_timeout",
    "memory_fraction", "objective", "target_loss", "target_samples", "target_batch", "target_learning_rate",
    "time_cap", "observer_rounds", "observer_block_steps"};

void read_confirmation_keys(const YAML::Node& root, const std::string& file, SearchSettings& s) {
  read_yaml_key(root, "confirm_rounds", s.confirm_rounds, file);
  if (s.confirm_rounds < 0 || s.confirm_rounds == 1)
    throw std::invalid_argument(file + ": key 'confirm_rounds': expected 0 (no confirmation) or at least 2 (one round "
                                "gives no interval), got " + std::to_string(s.confirm_rounds));
  read_yaml_key(root, "observer_rounds", s.observer_rounds, file);
  read_yaml_key(root, "observer_block_steps", s.observer_block_steps, file);
  if (s.observer_rounds < 2 || s.observer_block_steps < 1)
    throw std::invalid_argument(file + ": keys 'observer_rounds' and 'observer_block_steps': expected at least 2 "
                                "rounds (one gives no interval) of at least 1 step, got " +
                                std::to_string(s.observer_rounds) + " of " + std::to_string(s.observer_block_steps));
  read_yaml_key(root, "confirm_budget_share", s.confirm_budget_share, file);
  if (!(s.confirm_budget_share >= 0 && s.confirm_budget_share < 1))
    throw std::invalid_argument(file + ": key 'confirm_budget_share': expected a share in [0, 1), got " +
                                std::to_string(s.confirm_budget_share));
  read_yaml_duration(root, "confirm_measure_time", s.confirm_measure_seconds, file);
}

}  // namespace

std::map<std::string, double> SearchSettings::options_for(const std::string& tuner) const {
  const auto it = tuner_options.find(tuner);
  return it == tuner_options.end() ? std::map<std::string, double>{} : it->second;
}

std::string parse_search_objective(const std::string& text) {
  if (text == "two-stage" || text == "time-to-loss") return text;
  throw std::invalid_argument("objective '" + text + "': expected two-stage or time-to-loss");
}

std::string default_search_settings_path() { return (std::filesystem::path(configs_dir()) / "search.yaml").string(); }

namespace {

void read_learning_rate_keys(const YAML::Node& root, const std::string& file, SearchSettings& s) {
  read_yaml_key(root, "ramp_learning_rate", s.ramp_learning_rate, file);
  read_yaml_key(root, "learning_rates", s.learning_rates, file);
  read_yaml_key(root, "pretrained_learning_rates", s.pretrained_learning_rates, file);
  for (const char* key : {"learning_rates", "pretrained_learning_rates"}) {
    const auto& rates = std::string(key) == "learning_rates" ? s.learning_rates : s.pretrained_learning_rates;
    if (rates.empty()) throw std::invalid_argument(file + ": key '" + key + "': expected at least one value");
    for (double rate : rates)
      if (!(rate > 0)) throw std::invalid_argument(file + ": key '" + key + "': expected rates > 0, got " + std::to_string(rate));
  }
  if (!(s.ramp_learning_rate > 0))
    throw std::invalid_argument(file + ": key 'ramp_learning_rate': expected a rate > 0, got " +
                                std::to_string(s.ramp_learning_rate));
  read_yaml_key(root, "learning_rate_edge_factor", s.learning_rate_edge_factor, file);
  read_yaml_key(root, "learning_rate_bounds", s.learning_rate_bounds, file);
  const auto& b = s.learning_rate_bounds;
  if (b.size() != 2 || !(b[0] > 0) || !(b[1] >= b[0]) || !(s.learning_rate_edge_factor > 1))
    throw std::invalid_argument(file + ": keys 'learning_rate_bounds', 'learning_rate_edge_factor': expected "
                                "[low, high] with 0 < low <= high and a factor > 1, got " +
                                std::to_string(b.size()) + " bounds and factor " +
                                std::to_string(s.learning_rate_edge_factor));
}

}  // namespace

SearchSettings settings_for_device(SearchSettings settings, const std::string& device) {
  if (is_cuda_device(device)) settings.max_batch_size = settings.gpu_max_batch_size;
  return settings;
}

SearchSettings load_search_settings(const std::string& file) {
  const YAML::Node root = load_yaml_file(file);
  SearchSettings s;
  read_yaml_duration(root, "budget", s.budget_seconds, file);
  read_yaml_key(root, "min_batch_size", s.min_batch_size, file);
  read_yaml_key(root, "max_batch_size", s.max_batch_size, file);
  read_yaml_key(root, "gpu_max_batch_size", s.gpu_max_batch_size, file);
  if (s.min_batch_size < 1 || s.max_batch_size < s.min_batch_size || s.gpu_max_batch_size < s.min_batch_size)
    throw std::invalid_argument(file + ": keys 'min_batch_size', 'max_batch_size', 'gpu_max_batch_size': expected 1 <= "
                                "min <= each max, got " + std::to_string(s.min_batch_size) + ", " +
                                std::to_string(s.max_batch_size) + " and " + std::to_string(s.gpu_max_batch_size));
  if (root["min_throughput_gain"])
    throw std::invalid_argument(file + ": key 'min_throughput_gain' is now an option of the batch_ramp strategy: "
                                "write it as tuner_options: {batch_ramp: {min_throughput_gain: VALUE}}");
  check_known_keys(root, kSettingsKeys, file);
  read_tuner_options(root, file, s.tuner_options);
  read_learning_rate_keys(root, file, s);
  read_yaml_key(root, "warmup_steps", s.warmup_steps, file);
  read_yaml_key(root, "min_measure_steps", s.min_measure_steps, file);
  read_yaml_key(root, "max_measure_steps", s.max_measure_steps, file);
  read_yaml_duration(root, "measure_time", s.measure_seconds, file);
  read_yaml_key(root, "ci_halfwidth", s.ci_halfwidth, file);
  if (s.ci_halfwidth <= 0 || s.ci_halfwidth >= 1)
    throw std::invalid_argument(file + ": key 'ci_halfwidth': expected a share between 0 and 1, got " +
                                std::to_string(s.ci_halfwidth));
  read_yaml_key(root, "lr_train_steps", s.lr_train_steps, file);
  read_yaml_key(root, "lr_max_train_steps", s.lr_max_train_steps, file);
  if (s.lr_max_train_steps != 0 && s.lr_max_train_steps < s.lr_train_steps)
    throw std::invalid_argument(file + ": key 'lr_max_train_steps': expected 0 (never lengthen) or at least "
                                "lr_train_steps (" + std::to_string(s.lr_train_steps) + "), got " +
                                std::to_string(s.lr_max_train_steps));
  read_yaml_key(root, "lr_transfer", s.lr_transfer, file);
  read_yaml_key(root, "lr_reuse", s.lr_reuse, file);
  read_yaml_key(root, "seed_check", s.seed_check, file);
  read_confirmation_keys(root, file, s);
  read_yaml_key(root, "lr_schedule", s.lr_schedule, file);
  read_yaml_key(root, "lr_warmup_share", s.lr_warmup_share, file);
  try {
    check_lr_schedule(s.lr_schedule);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(file + ": key 'lr_schedule': " + e.what());
  }
  read_yaml_key(root, "held_out_share", s.held_out_share, file);
  if (!(s.held_out_share >= 0 && s.held_out_share < 1))
    throw std::invalid_argument(file + ": key 'held_out_share': expected a share in [0, 1), got " +
                                std::to_string(s.held_out_share));
  if (!(s.lr_warmup_share >= 0 && s.lr_warmup_share < 1))
    throw std::invalid_argument(file + ": key 'lr_warmup_share': expected a share in [0, 1), got " +
                                std::to_string(s.lr_warmup_share));
  read_yaml_key(root, "batch_tuner", s.batch_tuner, file);
  read_yaml_key(root, "lr_tuner", s.lr_tuner, file);
  read_yaml_key(root, "max_trials", s.max_trials, file);
  read_yaml_key(root, "ramp_budget_share", s.ramp_budget_share, file);
  read_yaml_key(root, "compiled_ramp_from_native", s.compiled_ramp_from_native, file);
  read_yaml_key(root, "screen_batch_size", s.screen_batch_size, file);
  read_yaml_key(root, "screen_keep_share", s.screen_keep_share, file);
  read_yaml_key(root, "screen_budget_share", s.screen_budget_share, file);
  if (s.screen_batch_size < 1 || !(s.screen_keep_share > 0 && s.screen_keep_share <= 1) ||
      !(s.screen_budget_share > 0 && s.screen_budget_share <= 1))
    throw std::invalid_argument(file + ": screen keys: expected screen_batch_size >= 1, screen_keep_share and "
                                "screen_budget_share in (0, 1], got " + std::to_string(s.screen_batch_size) + ", " +
                                std::to_string(s.screen_keep_share) + " and " + std::to_string(s.screen_budget_share));
  read_yaml_duration(root, "trial_timeout", s.trial_timeout_seconds, file);
  read_yaml_key(root, "memory_fraction", s.memory_fraction, file);
  read_yaml_key(root, "objective", s.objective, file);
  s.objective = parse_search_objective(s.objective);
  read_yaml_key(root, "target_loss", s.target_loss, file);
  read_yaml_key(root, "target_samples", s.target_samples, file);
  read_yaml_key(root, "target_batch", s.target_batch, file);
  read_yaml_key(root, "target_learning_rate", s.target_learning_rate, file);
  read_yaml_key(root, "time_cap", s.time_cap, file);
  if (s.target_samples < 1 || s.target_batch < 1 || !(s.target_learning_rate > 0) || s.target_loss < 0)
    throw std::invalid_argument(file + ": time-to-loss keys: expected target_samples, target_batch >= 1, "
                                "target_learning_rate > 0 and target_loss >= 0, got " +
                                std::to_string(s.target_samples) + ", " + std::to_string(s.target_batch) + ", " +
                                std::to_string(s.target_learning_rate) + ", " + std::to_string(s.target_loss));
  return s;
}

}  // namespace tune
