// Parsing and printing of human durations ("20m", "90s", "1h30m") for budgets and timeouts.
// Units: h, m, s; a bare number means seconds.
#include "util/duration.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tune {
namespace {

double unit_seconds(char unit, const std::string& text) {
  switch (unit) {
    case 'h': return 3600.0;
    case 'm': return 60.0;
    case 's': return 1.0;
    default:
      throw std::invalid_argument("duration '" + text + "': unknown unit '" + std::string(1, unit) +
                                  "' (expected h, m or s, e.g. '20m' or '1h30m')");
  }
}

}  // namespace

double parse_duration_seconds(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("duration '': expected e.g. '20m', '90s' or '1h30m'");
  double total = 0.0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t used = 0;
    double value = 0.0;
    try {
      value = std::stod(text.substr(pos), &used);
    } catch (const std::exception&) {
      throw std::invalid_argument("duration '" + text + "': expected a number at '" + text.substr(pos) + "'");
    }
    if (value < 0 || !std::isfinite(value))
      throw std::invalid_argument("duration '" + text + "': expected a positive number");
    pos += used;
    const bool bare = pos >= text.size();
    total += bare ? value : value * unit_seconds(static_cast<char>(std::tolower(text[pos])), text);
    if (!bare) ++pos;
  }
  if (total <= 0) throw std::invalid_argument("duration '" + text + "': expected more than zero seconds");
  // A fuzzer's find: 3.9e95 s passed, and a sweep's --budget cast it to a long (undefined behaviour). No budget or
  // timeout tune takes runs a year.
  if (total > kLongestDurationSeconds)
    throw std::invalid_argument("duration '" + text + "': expected at most a year (" +
                                std::to_string(static_cast<long>(kLongestDurationSeconds)) + " s)");
  return total;
}

std::string format_duration(double seconds) {
  char buf[64];
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  } else if (seconds < 3600) {
    const int s = static_cast<int>(std::lround(seconds));
    std::snprintf(buf, sizeof buf, "%dm %02ds", s / 60, s % 60);
  } else {
    const int m = static_cast<int>(std::lround(seconds / 60));
    std::snprintf(buf, sizeof buf, "%dh %02dm", m / 60, m % 60);
  }
  return buf;
}

}  // namespace tune
