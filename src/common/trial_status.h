// The typed outcome of one trial: failures are data, never magic numbers.
// Names match the strings stored in SQLite and printed in reports.
#pragma once
#include <string>

namespace tune {

enum class TrialStatus { ok, oom, diverged, timeout, crashed, compile_error, invalid };

std::string to_string(TrialStatus status);
// Throws std::invalid_argument quoting the text when it names no status.
TrialStatus parse_trial_status(const std::string& text);

}  // namespace tune
