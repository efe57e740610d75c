// Parsing and printing of human durations ("20m", "90s", "1h30m") for budgets and timeouts.
// Parsing errors are user errors: the exception message quotes the bad text.
#pragma once
#include <string>

namespace tune {

// The longest duration parse_duration_seconds takes: a year.
constexpr double kLongestDurationSeconds = 365.0 * 24 * 3600;
// Parses "1h30m", "20m", "45s", "1.5h" or a bare number of seconds, more than 0 and at most a year. Throws
// std::invalid_argument.
double parse_duration_seconds(const std::string& text);

// "1h 05m", "12m 30s", "42.1 s": short and readable in progress lines and summaries.
std::string format_duration(double seconds);

}  // namespace tune
