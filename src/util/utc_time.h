// The current time in UTC as text, in a strftime format: "%Y-%m-%dT%H:%M:%SZ" for records, "%Y-%m-%d %H:%M UTC"
// for the line a report states when it was made. One place, so every record and report reads the clock alike.
#pragma once
#include <ctime>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>

namespace tune {

inline std::string utc_now_text(const char* strftime_format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[64];
  const size_t length = std::strftime(text, sizeof text, strftime_format, &tm);
  return std::string(text, length);
}

// Seconds since the epoch of a record's "2026-12-03T17:21:05Z" (the store's finished_at); nullopt for other text.
inline std::optional<std::time_t> parse_utc_record(const std::string& text) {
  std::tm tm{};
  std::istringstream in(text);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  if (in.fail()) return std::nullopt;
  return timegm(&tm);
}

}  // namespace tune
