// Small text helpers the reports of tools/ share: a file read whole, the time a report was made, and the rules
// they keep from the Python scripts they replaced (scripts/*.py until these reporters took over), so that a report
// made again from the same inputs is the same bytes.
#pragma once
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "util/utc_time.h"

namespace tune {

// A figure a report does not have (a run without load samples, a cell without a loss).
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// The whole file; throws std::invalid_argument naming a file that cannot be read.
inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("'" + path + "': cannot read this file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Now, to the minute, as the reports state when they were made: "2026-12-03 17:21 UTC".
inline std::string utc_minute_now() { return utc_now_text("%Y-%m-%d %H:%M UTC"); }

// `text` without the leading and trailing characters of `blanks` (Python's str.strip).
inline std::string trimmed(const std::string& text, const char* blanks = " \t\r\n\f\v") {
  const size_t first = text.find_first_not_of(blanks);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

// Python prints a NaN as "nan" (or "+nan" with a '+' flag) whatever its sign bit; printf prints "-nan" for a
// negative one. A NaN passed through this prints as Python's.
inline double unsigned_nan(double value) { return std::isnan(value) ? std::fabs(value) : value; }

// The first `count` code points of UTF-8 text (Python's text[:count]), never half a character.
inline std::string first_code_points(const std::string& text, size_t count) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && seen++ == count) return text.substr(0, i);
  return text;
}

}  // namespace tune
