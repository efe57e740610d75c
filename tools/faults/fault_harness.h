// Drives `tune` as a user would for the fault matrix: starts it in the background, signals and waits for it,
// and reads what it left behind: its database (committed trials, best configs, integrity) and live processes.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tune::faults {

struct Started {
  pid_t pid = 0;
  std::string log;
};

struct Finished {
  int exit_code = -1;  // -1 when a signal ended it (signal set) or the wait timed out
  int signal = 0;
  bool hung = false;   // still running at the wait's limit (then killed)
  std::string output;  // its stdout and stderr together
};

// `tune ARGS` with stdout and stderr to `log`, and `env` ("NAME=value") added to its environment.
Started start_tune(const std::string& tune, const std::vector<std::string>& args, const std::string& log,
                   const std::vector<std::string>& env = {});
// Waits for it to end (kill -9 after `limit_seconds`: then hung).
Finished wait_tune(const Started& run, double limit_seconds = 900);
Finished run_tune(const std::string& tune, const std::vector<std::string>& args, const std::string& log,
                  const std::vector<std::string>& env = {});

// Processes other than this one whose command line mentions `text`, after `settle_seconds` for the kernel to
// deliver death signals: what a search left running.
int leftover_processes(const std::string& text, double settle_seconds = 0.3);
void sleep_seconds(double seconds);

// The committed trials of a database: "study key/config key" -> the whole stored row (id, finish time, result).
using Snapshot = std::map<std::string, std::string>;
Snapshot snapshot(const std::string& db);
// Trials of `before` missing from `after`, and those whose stored row changed (measured again).
int lost_trials(const Snapshot& before, const Snapshot& after);
int remeasured_trials(const Snapshot& before, const Snapshot& after);
// Rows beyond the first for one (study, config key): 0 unless the store's uniqueness broke.
int duplicate_rows(const std::string& db);
// Each study's best config as "backend precision: batch B, lr R".
std::vector<std::string> best_configs(const std::string& db);
// SQLite's own check of the file (PRAGMA integrity_check is "ok").
bool integrity_ok(const std::string& db);
// The rows of a query, each as its columns joined by '|'; empty when the file is not (yet) a database.
std::vector<std::string> query(const std::string& db, const std::string& sql);
// A column (SQL over the trials table) of the throughput trial at `batch`; "" when there is none.
std::string throughput_trial_field(const std::string& db, int batch, const std::string& column);
std::string read_file(const std::string& path);
// The rest of the line of `output` where `part` first occurs, from `part` on ("" when it does not occur): a
// message, without the trial progress printed before it on the same line.
std::string line_from(const std::string& output, const std::string& part);
// Writes `text` (bytes as they are) to `path`, making its folder; returns the path.
std::string write_file(const std::filesystem::path& path, const std::string& text);
// Waits until the database holds at least `count` trials (false after `limit_seconds`).
bool wait_for_trials(const std::string& db, int count, double limit_seconds);

}  // namespace tune::faults
