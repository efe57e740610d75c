// Names of trial statuses, as stored and printed; parsing rejects anything else by name.
// The JSON mapping in trial_result.h uses the same strings.
#include "common/trial_status.h"

#include <array>
#include <stdexcept>
#include <utility>

namespace tune {
namespace {

constexpr std::array<std::pair<TrialStatus, const char*>, 7> kNames{{
    {TrialStatus::ok, "ok"}, {TrialStatus::oom, "oom"}, {TrialStatus::diverged, "diverged"},
    {TrialStatus::timeout, "timeout"}, {TrialStatus::crashed, "crashed"},
    {TrialStatus::compile_error, "compile_error"}, {TrialStatus::invalid, "invalid"}}};

}  // namespace

std::string to_string(TrialStatus status) {
  for (const auto& [value, name] : kNames)
    if (value == status) return name;
  return "crashed";
}

TrialStatus parse_trial_status(const std::string& text) {
  for (const auto& [value, name] : kNames)
    if (text == name) return value;
  throw std::invalid_argument("trial status '" + text +
                              "': expected ok, oom, diverged, timeout, crashed, compile_error or invalid");
}

}  // namespace tune
