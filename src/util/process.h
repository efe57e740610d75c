// Runs a child process with a wall-clock timeout and its output sent to a log file.
// Used to isolate trials: a crash, hang or OOM kill of the child is reported, never inherited.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace tune {

struct ChildOutcome {
  bool timed_out = false;   // killed by us after the deadline
  bool stopped = false;     // killed by us because tune was asked to stop (util/stop_signals.h)
  bool signaled = false;    // ended by a signal (crash, or the kernel's OOM killer)
  int signal = 0;
  int exit_code = -1;       // valid when neither timed_out nor signaled
  double wall_seconds = 0.0;
};

// Runs argv[0] with argv, stdout+stderr appended to log_path (empty: inherit).
// The child gets its own process group so that a timeout or a stop kills everything it started, and whatever
// it left running in that group (a lingering grandchild) is killed when it ends.
// tune's own commands go through the fork server when one runs (util/fork_server.h): same contract.
// Throws std::runtime_error when the program cannot be started.
ChildOutcome run_child(const std::vector<std::string>& argv, const std::string& log_path,
                       double timeout_seconds);

// Appends this process's stdout and stderr to log_path (nothing when empty): a child's log.
void append_output_to(const std::string& log_path);

// In a forked child: ties it to `parent` (the kernel kills it when the parent dies; a parent already gone ends
// it), then execs argv; exits 127, saying why on stderr, when it cannot.
[[noreturn]] void exec_tied_to(pid_t parent, const std::vector<std::string>& argv);

// Waits for the child `pid` (the leader of its own process group) to end, kills what is left in its group while
// its zombie still holds the group's id (so the id cannot have been reused), then reaps it; its wait status.
int reap_with_group(pid_t pid);

// Fills outcome's signal or exit code from a waitpid status.
void record_wait_status(ChildOutcome& outcome, int status);

// What a short command (sbatch, sacct, scontrol) printed, kept apart: stdout is parsed, stderr explains.
struct CapturedRun {
  ChildOutcome outcome;
  std::string out, err;
  bool ok() const { return !outcome.timed_out && !outcome.signaled && outcome.exit_code == 0; }
};

// Runs argv (argv[0] looked up in PATH) with stdin from /dev/null, capturing stdout and stderr; killed after
// timeout_seconds. A program that cannot be started exits 127 with the reason in err.
CapturedRun run_capturing(const std::vector<std::string>& argv, double timeout_seconds);

// Human text for an outcome: "exit code 3", "signal 11 (Segmentation fault)", "timed out after 30.0 s".
std::string describe_outcome(const ChildOutcome& outcome);

}  // namespace tune
