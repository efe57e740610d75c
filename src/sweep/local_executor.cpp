// Runs each study's script as a child of the coordinator (util/process.h: its own process group, killed with the
// coordinator), its output in the study's log; the exit status is the study's outcome.
#include "sweep/local_executor.h"

#include <ctime>
#include <filesystem>
#include <limits>

#include "util/process.h"

namespace tune {

LocalExecutor::LocalExecutor(SweepSpec spec, std::string tune_executable)
    : spec_(std::move(spec)), tune_(std::move(tune_executable)) {}

void LocalExecutor::submit(const std::vector<PlannedStudy>& studies, SweepState& state) {
  for (const auto& study : studies) {
    const std::string script = write_study_script(spec_, study, tune_);
    StudyRecord& r = state.record(study.id);
    const std::string log = study_log_path(spec_, study);
    std::filesystem::create_directories(std::filesystem::path(log).parent_path());
    ++r.attempts;
    r.job = "local";
    r.phase = StudyPhase::running;
    r.started_at = static_cast<double>(std::time(nullptr));
    const ChildOutcome outcome = run_child({"/bin/bash", script}, log, std::numeric_limits<double>::infinity());
    const bool ok = !outcome.signaled && !outcome.timed_out && outcome.exit_code == 0;
    r.phase = ok ? StudyPhase::done : StudyPhase::failed;
    r.reason = ok ? "" : "tune " + describe_outcome(outcome) + " (log " + log + ")";
  }
}

void LocalExecutor::cancel(SweepState& state) {
  // A local study runs inside its coordinator and dies with it: only the records are left to mark.
  for (auto& r : state.studies)
    if (is_active(r.phase)) r.phase = StudyPhase::cancelled;
}

}  // namespace tune
