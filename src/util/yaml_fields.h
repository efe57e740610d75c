// Typed reads of YAML keys with user-facing errors: "FILE:LINE: key 'a.b': expected an integer, got 'x'".
// Every YAML reader (models, search settings, instance profiles) goes through this one helper.
#pragma once
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/duration.h"
#include "util/join.h"
#include "util/nearest_name.h"

namespace tune {

template <typename T> inline const char* yaml_type_name() { return "a value of the right type"; }
template <> inline const char* yaml_type_name<int>() { return "an integer"; }
template <> inline const char* yaml_type_name<int64_t>() { return "an integer"; }
template <> inline const char* yaml_type_name<double>() { return "a number"; }
template <> inline const char* yaml_type_name<bool>() { return "true or false"; }
template <> inline const char* yaml_type_name<std::string>() { return "a string"; }
template <> inline const char* yaml_type_name<std::vector<double>>() { return "a list of numbers"; }
template <> inline const char* yaml_type_name<std::vector<int>>() { return "a list of integers"; }
template <> inline const char* yaml_type_name<std::vector<std::string>>() { return "a list of strings"; }

// Reads node[key] into out; keeps out's default when the key is absent and not required.
// `prefix` is the key's parent path for messages (e.g. "config.").
template <typename T>
void read_yaml_key(const YAML::Node& node, const std::string& key, T& out, const std::string& file,
                   const std::string& prefix = "", bool required = false) {
  const YAML::Node value = node[key];
  if (!value) {
    if (required)
      throw std::invalid_argument(file + ": missing key '" + prefix + key + "' (expected " + yaml_type_name<T>() + ")");
    return;
  }
  try {
    out = value.as<T>();
  } catch (const YAML::Exception&) {
    const std::string shown = value.IsScalar() ? "'" + value.Scalar() + "'" : "a non-scalar value";
    throw std::invalid_argument(file + ":" + std::to_string(value.Mark().line + 1) + ": key '" + prefix + key +
                                "': expected " + yaml_type_name<T>() + ", got " + shown);
  }
}

// A duration key ("20m", "90s", "1h30m"; util/duration.h) in seconds; keeps out's default when the key is absent.
inline void read_yaml_duration(const YAML::Node& node, const std::string& key, double& out, const std::string& file,
                               const std::string& prefix = "") {
  std::string text;
  read_yaml_key(node, key, text, file, prefix);
  if (text.empty()) return;
  try {
    out = parse_duration_seconds(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(file + ": key '" + prefix + key + "': " + e.what());
  }
}

// An unknown key is an error, never ignored: a mistyped one would silently keep its default.
inline void check_known_keys(const YAML::Node& node, const std::vector<std::string>& known, const std::string& file,
                             const std::string& prefix = "") {
  if (!node.IsMap()) return;
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string nearest = nearest_name(key, known);
    throw std::invalid_argument(file + ":" + std::to_string(entry.first.Mark().line + 1) + ": unknown key '" + prefix +
                                key + "'" + (nearest.empty() ? "" : " (did you mean '" + prefix + nearest + "'?)") +
                                "; known keys: " + join(known));
  }
}

// Loads a YAML file; a missing or malformed file is a user error naming the file.
inline YAML::Node load_yaml_file(const std::string& file) {
  try {
    return YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw std::invalid_argument("'" + file + "' cannot be read");
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(file + ": invalid YAML: " + e.what());
  }
}

}  // namespace tune
