// The reference's recording sessions: each recording's median native speed relative to the calibration workload,
// per model. Their spread is the drift between days on one instance, which widens that metric's gate.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tune {

struct RegressionRun;

struct ReferenceSession {
  std::string created;                         // UTC, ISO 8601: when that recording was made
  std::map<std::string, double> relative_speeds;  // model -> median native speed over the calibration workload
};

// The session `run` itself is: its models' median relative speeds (models without calibration samples left out).
ReferenceSession session_of(const RegressionRun& run);

// The sessions a reference stands for: its recorded ones, or (an older file without them) itself alone.
std::vector<ReferenceSession> sessions_of(const RegressionRun& run);

// Gives `recorded` its session history: `previous`'s sessions followed by its own when both were measured
// with the same settings on the same instance (the drift they show is then this instance's); else its own.
void carry_sessions(const RegressionRun& previous, RegressionRun& recorded);

// How far the sessions' medians of `model` lie apart: max / min - 1; 0 with fewer than two sessions.
double session_drift(const std::vector<ReferenceSession>& sessions, const std::string& model);

// How many sessions hold `model`.
int sessions_with(const std::vector<ReferenceSession>& sessions, const std::string& model);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ReferenceSession, created, relative_speeds)

}  // namespace tune
