// Typed reads of YAML keys with user-facing errors: "FILE:LINE: key 'a.b': expected an integer, got 'x'".
// Every YAML reader (models, search settings, instance profiles) goes through this one helper.
#pragma once
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/unicode_text.h"
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
// A node whose keys are read must be a mapping (or empty: every key absent); a scalar or a list there is the
// user's mistake, which yaml-cpp would throw as its own BadSubscript.
inline void require_yaml_mapping(const YAML::Node& node, const std::string& file, const std::string& prefix) {
  if (!node.IsDefined() || node.IsNull() || node.IsMap()) return;
  throw std::invalid_argument(file + ":" + std::to_string(node.Mark().line + 1) + ": " +
                              (prefix.empty() ? std::string("the file") : "'" + prefix.substr(0, prefix.size() - 1) + "'") +
                              ": expected a mapping of keys, got " + (node.IsSequence() ? "a list" : "a single value"));
}

// yaml-cpp can hand back strings that are not UTF-8 from a valid UTF-8 file (fuzzing found one with a NUL byte);
// JSON (the store, state files) refuses them later, so they are refused where they are read.
inline void require_utf8(const std::string& text, const std::string& where) {
  if (valid_utf8_length(text) != text.size()) throw std::invalid_argument(where + ": not valid UTF-8 text");
}
inline void require_utf8(const std::vector<std::string>& texts, const std::string& where) {
  for (const auto& text : texts) require_utf8(text, where);
}
template <typename T>
void require_utf8(const T&, const std::string&) {}

template <typename T>
void read_yaml_key(const YAML::Node& node, const std::string& key, T& out, const std::string& file,
                   const std::string& prefix = "", bool required = false) {
  require_yaml_mapping(node, file, prefix);
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
  require_utf8(out, file + ":" + std::to_string(value.Mark().line + 1) + ": key '" + prefix + key + "'");
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

// A mapping key as a name: YAML allows a list or a mapping as a key, which no tune file means.
inline std::string yaml_key_name(const YAML::Node& key, const std::string& file) {
  if (!key.IsScalar())
    throw std::invalid_argument(file + ":" + std::to_string(key.Mark().line + 1) + ": a key that is not a name");
  require_utf8(key.Scalar(), file + ":" + std::to_string(key.Mark().line + 1) + ": key");
  return key.Scalar();
}

// An unknown key is an error, never ignored: a mistyped one would silently keep its default.
inline void check_known_keys(const YAML::Node& node, const std::vector<std::string>& known, const std::string& file,
                             const std::string& prefix = "") {
  require_yaml_mapping(node, file, prefix);
  if (!node.IsMap()) return;
  for (const auto& entry : node) {
    const std::string key = yaml_key_name(entry.first, file);
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string nearest = nearest_name(key, known);
    throw std::invalid_argument(file + ":" + std::to_string(entry.first.Mark().line + 1) + ": unknown key '" + prefix +
                                key + "'" + (nearest.empty() ? "" : " (did you mean '" + prefix + nearest + "'?)") +
                                "; known keys: " + join(known));
  }
}

// Loads a YAML file; a missing or malformed file (invalid UTF-8 included: YAML is Unicode, and tune's JSON of
// it would fail later) is a user error naming the file.
inline YAML::Node load_yaml_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::invalid_argument("'" + file + "' cannot be read");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const size_t valid = valid_utf8_length(text);
  if (valid != text.size())
    throw std::invalid_argument(file + ": not valid UTF-8 at byte " + std::to_string(valid) + " (YAML is Unicode text)");
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(file + ": invalid YAML: " + e.what());
  }
}

}  // namespace tune
