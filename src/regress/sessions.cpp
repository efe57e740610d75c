// Session history of a regression reference: one median per model and recording, kept across re-recordings on
// the same instance so the relative-speed gate can stand outside the drift measured between days.
#include "regress/sessions.h"

#include <algorithm>
#include <cmath>

#include "regress/run.h"
#include "stats/statistics.h"
#include "trial/backend_registry.h"

namespace tune {

ReferenceSession session_of(const RegressionRun& run) {
  ReferenceSession session;
  session.created = run.created;
  for (const auto& m : run.models) {
    const BackendSamples* calibration = m.find(kCalibrationBackend);
    if (!calibration || !calibration->ok() || calibration->speedups.empty()) continue;
    // The calibration's paired "speedup" over native is calibration speed / native speed: native's is its inverse.
    std::vector<double> relative;
    for (double s : calibration->speedups) relative.push_back(1.0 / s);
    session.relative_speeds[m.model] = median(relative);
  }
  return session;
}

std::vector<ReferenceSession> sessions_of(const RegressionRun& run) {
  if (!run.sessions.empty()) return run.sessions;
  return {session_of(run)};
}

void carry_sessions(const RegressionRun& previous, RegressionRun& recorded) {
  recorded.sessions.clear();
  if (previous.settings == recorded.settings && previous.instance_fingerprint == recorded.instance_fingerprint)
    recorded.sessions = sessions_of(previous);
  recorded.sessions.push_back(session_of(recorded));
}

double session_drift(const std::vector<ReferenceSession>& sessions, const std::string& model) {
  std::vector<double> medians;
  for (const auto& s : sessions) {
    const auto it = s.relative_speeds.find(model);
    if (it != s.relative_speeds.end() && it->second > 0) medians.push_back(it->second);
  }
  if (medians.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  return *hi / *lo - 1;
}

int sessions_with(const std::vector<ReferenceSession>& sessions, const std::string& model) {
  return static_cast<int>(std::count_if(sessions.begin(), sessions.end(),
                                        [&](const ReferenceSession& s) { return s.relative_speeds.count(model) > 0; }));
}

}  // namespace tune
