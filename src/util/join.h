// Joins names for user-facing messages ("expected one of a, b, c"): the one place that formats such a list.
// Header-only and tiny, so the few files that list known names include it without rebuilding the rest.
#pragma once
#include <string>
#include <vector>

namespace tune {

inline std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace tune
