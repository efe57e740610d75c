// Runs a child process with a wall-clock timeout and its output sent to a log file.
// fork/exec with a polled waitpid: simple, and the child cannot take the parent down.
#include "util/process.h"

#include "util/fork_server.h"
#include "util/stop_signals.h"

#include <fcntl.h>
#include <poll.h>
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

// argv as exec wants it: C strings (owned by argv) ending in a null pointer.
std::vector<char*> exec_arguments(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::string& log_path, pid_t parent) {
  setpgid(0, 0);
  append_output_to(log_path);
  exec_tied_to(parent, argv);
}

// Moves what is ready on the open pipes (fd -1: closed) into their sinks; false once both are closed.
bool drain_pipes(int fds[2], std::string* sinks[2], int wait_ms) {
  if (fds[0] < 0 && fds[1] < 0) return false;
  pollfd ready[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};  // poll skips a negative fd
  if (poll(ready, 2, wait_ms) <= 0) return true;
  char buffer[4096];
  for (int i = 0; i < 2; ++i) {
    if (fds[i] < 0 || ready[i].revents == 0) continue;
    const ssize_t n = read(fds[i], buffer, sizeof buffer);
    if (n > 0) {
      sinks[i]->append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      close(fds[i]);
      fds[i] = -1;
    }
  }
  return true;
}

[[noreturn]] void exec_capturing(const std::vector<std::string>& argv, int out_fd, int err_fd) {
  const int null_fd = open("/dev/null", O_RDONLY);
  dup2(null_fd, STDIN_FILENO);
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  std::vector<char*> args = exec_arguments(argv);
  execvp(args[0], args.data());
  std::fprintf(stderr, "cannot start '%s': %s\n", args[0], std::strerror(errno));
  _exit(127);
}

}  // namespace

CapturedRun run_capturing(const std::vector<std::string>& argv, double timeout_seconds) {
  if (argv.empty()) throw std::runtime_error("run_capturing: empty command");
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot fork for '") + argv[0] + "': " + std::strerror(errno));
  if (pid == 0) {
    close(out_pipe[0]), close(err_pipe[0]);
    exec_capturing(argv, out_pipe[1], err_pipe[1]);
  }
  close(out_pipe[1]), close(err_pipe[1]);
  CapturedRun run;
  int fds[2] = {out_pipe[0], err_pipe[0]};
  std::string* sinks[2] = {&run.out, &run.err};
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  while (drain_pipes(fds, sinks, 50)) {
    if (elapsed() <= timeout_seconds) continue;
    kill(pid, SIGKILL);
    run.outcome.timed_out = true;
    for (int fd : fds)
      if (fd >= 0) close(fd);  // a grandchild may hold the pipes open: stop reading
    break;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  run.outcome.wall_seconds = elapsed();
  if (!run.outcome.timed_out) record_wait_status(run.outcome, status);
  return run;
}

void exec_tied_to(pid_t parent, const std::vector<std::string>& argv) {
  // A child must not outlive tune: Ctrl-C reaches only tune's own process group and kill -9 only tune,
  // so the kernel kills the child when its parent dies (and a parent that died already is checked).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(128 + SIGKILL);
  std::vector<char*> args = exec_arguments(argv);
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
  for (;;) {
    siginfo_t info = {};
    const int waited = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    outcome.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited == 0 && info.si_pid == pid) break;
    if (waited < 0 && errno != EINTR) throw std::runtime_error(std::string("waitid failed: ") + std::strerror(errno));
    outcome.stopped = stop_signal() != 0;
    outcome.timed_out = !outcome.stopped && outcome.wall_seconds > timeout_seconds;
    if (outcome.stopped || outcome.timed_out) {
      kill(-pid, SIGKILL);
      reap_with_group(pid);
      return outcome;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  record_wait_status(outcome, reap_with_group(pid));
  return outcome;
}

int reap_with_group(pid_t pid) {
  siginfo_t info = {};
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {}
  kill(-pid, SIGKILL);  // the group's other members; the zombie leader keeps its id from being reused until reaped
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return status;
}

std::string describe_outcome(const ChildOutcome& outcome) {
  if (outcome.timed_out) return "timed out after " + std::to_string(static_cast<int>(outcome.wall_seconds)) + " s";
  if (outcome.signaled)
    return "killed by signal " + std::to_string(outcome.signal) + " (" + strsignal(outcome.signal) + ")";
  return "exit code " + std::to_string(outcome.exit_code);
}

}  // namespace tune
