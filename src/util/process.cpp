// Runs a child process with a wall-clock timeout and its output sent to a log file.
// fork/exec with a polled waitpid: simple, and the child cannot take the parent down.
#include "util/process.h"

#include "util/fork_server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace tune {
namespace {

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::string& log_path, pid_t parent) {
  setpgid(0, 0);
  append_output_to(log_path);
  exec_tied_to(parent, argv);
}

}  // namespace

void exec_tied_to(pid_t parent, const std::vector<std::string>& argv) {
  // A child must not outlive tune: Ctrl-C reaches only tune's own process group and kill -9 only tune,
  // so the kernel kills the child when its parent dies (and a parent that died already is checked).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(128 + SIGKILL);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  std::fprintf(stderr, "tune: cannot start '%s': %s\n", args[0], std::strerror(errno));
  _exit(127);
}

void append_output_to(const std::string& log_path) {
  if (log_path.empty()) return;
  const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  close(fd);
}

void record_wait_status(ChildOutcome& outcome, int status) {
  if (WIFSIGNALED(status)) {
    outcome.signaled = true;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.exit_code = WEXITSTATUS(status);
  }
}

ChildOutcome run_child(const std::vector<std::string>& argv, const std::string& log_path,
                       double timeout_seconds) {
  if (argv.empty()) throw std::runtime_error("run_child: empty command");
  if (fork_server_serves(argv)) return run_in_fork_server(argv, log_path, timeout_seconds);
  const auto start = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot fork for '") + argv[0] + "': " + std::strerror(errno));
  if (pid == 0) exec_child(argv, log_path, parent);
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill

  ChildOutcome outcome;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    outcome.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
    if (outcome.wall_seconds > timeout_seconds) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      outcome.timed_out = true;
      return outcome;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  record_wait_status(outcome, status);
  return outcome;
}

std::string describe_outcome(const ChildOutcome& outcome) {
  if (outcome.timed_out) return "timed out after " + std::to_string(static_cast<int>(outcome.wall_seconds)) + " s";
  if (outcome.signaled)
    return "killed by signal " + std::to_string(outcome.signal) + " (" + strsignal(outcome.signal) + ")";
  return "exit code " + std::to_string(outcome.exit_code);
}

}  // namespace tune
