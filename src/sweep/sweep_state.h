// A sweep's state on disk (STATE_DIR/state.json, versioned): each study's phase, attempts, the scheduler's job
// id of its current attempt and why earlier ones failed. A restarted coordinator re-attaches from it.
#pragma once
#include <string>
#include <vector>

#include "sweep/sweep_plan.h"

namespace tune {

constexpr int kSweepStateSchema = 1;

enum class StudyPhase { pending, queued, running, done, failed, cancelled };
std::string to_string(StudyPhase phase);
StudyPhase parse_study_phase(const std::string& text);  // throws std::invalid_argument quoting the text
bool is_active(StudyPhase phase);                        // queued or running: a job the scheduler holds

struct StudyRecord {
  std::string id;
  StudyPhase phase = StudyPhase::pending;
  int attempts = 0;                  // submissions so far
  std::string job;                   // the current attempt's job ("1234_3" on Slurm, "local" here)
  std::string reason;                // why the last attempt failed: scheduler state, exit code, its reason
  std::vector<std::string> history;  // one line per failed attempt
  bool merged = false;               // its database is in the sweep's store
  double started_at = 0;             // epoch seconds the current attempt was first seen running; 0: not yet
};

struct SweepState {
  int schema_version = kSweepStateSchema;
  std::string sweep_file, executor;
  bool cancelled = false;            // tune sweep --cancel: nothing is resubmitted
  std::vector<StudyRecord> studies;

  StudyRecord& record(const std::string& id);  // aborts on an id the state lacks (plan and state are synced)
};

std::string sweep_state_path(const std::string& state_dir);

// The state at `path`, or a fresh one when there is none; throws std::runtime_error naming a corrupt file or one
// from a newer tune.
SweepState load_sweep_state(const std::string& path);

// Written to a temporary file, synced and renamed over `path`: a coordinator killed mid-write leaves the old state.
void save_sweep_state(const std::string& path, const SweepState& state);

// Adds a pending record for each planned study the state lacks (a sweep file that grew); keeps every other record.
void sync_with_plan(SweepState& state, const std::vector<PlannedStudy>& plan);

}  // namespace tune
