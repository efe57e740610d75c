// The studies a sweep file asks for, each a plain `tune --model ...` with its own database, and the shell script
// an executor runs for it on whatever node it lands on.
#pragma once
#include <string>
#include <vector>

#include "sweep/sweep_spec.h"

namespace tune {

struct PlannedStudy {
  std::string id;                      // file-safe and stable: "bert-tiny.seq32" (+ ".PARTITION" on Slurm)
  std::string model;
  std::string partition;               // Slurm partition; empty for the local executor
  int seq_len = 0;
  double budget_seconds = 0;
  std::vector<std::string> tune_args;  // tune's flags, without the executable and --db
};

// Models x seq_lens (x partitions for Slurm), in the file's order.
std::vector<PlannedStudy> plan_sweep(const SweepSpec& spec);

// Where a study's database, script and log live under the sweep's state_dir.
std::string study_db_path(const SweepSpec& spec, const PlannedStudy& study);
std::string study_script_path(const SweepSpec& spec, const PlannedStudy& study);
std::string study_log_path(const SweepSpec& spec, const PlannedStudy& study);

// Writes the study's script (tune with its flags and database; with task_db node-local, the database copied to
// the node's $TMPDIR and back when tune ends) and returns its path. `tune_executable`: this tune's absolute path,
// which a cluster's nodes see on the shared file system.
std::string write_study_script(const SweepSpec& spec, const PlannedStudy& study, const std::string& tune_executable);

}  // namespace tune
