// The current time in UTC as text, in a strftime format: "%Y-%m-%dT%H:%M:%SZ" for records, "%Y-%m-%d %H:%M UTC"
// for the line a report states when it was made. One place, so every record and report reads the clock alike.
#pragma once
#include <ctime>
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

}  // namespace tune
