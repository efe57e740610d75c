// The fork server: one socket pair between tune and a process forked from it at start; tune sends a
// command (log path and argv), the server forks a child that runs tune's main on it, replies with the
// child's pid, waits for it and replies with its wait status. tune keeps the timeout and kills the group.
#include "util/fork_server.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <stdexcept>

#include "util/paths.h"
#include "util/process.h"
#include "util/stop_signals.h"

namespace tune {
namespace {

struct Server {
  pid_t pid = 0;
  int socket = -1;      // tune's end
  std::string executable;
  std::mutex mutex;     // one command at a time on the socket
};

Server& server() {
  static Server s;
  return s;
}

bool send_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool receive_all(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// A request: the number of strings, then each as its length and bytes (the log path first, then argv).
bool send_strings(int fd, const std::vector<std::string>& strings) {
  const uint32_t count = static_cast<uint32_t>(strings.size());
  if (!send_all(fd, &count, sizeof count)) return false;
  for (const auto& s : strings) {
    const uint32_t size = static_cast<uint32_t>(s.size());
    if (!send_all(fd, &size, sizeof size) || !send_all(fd, s.data(), s.size())) return false;
  }
  return true;
}

bool receive_strings(int fd, std::vector<std::string>& strings) {
  uint32_t count = 0;
  if (!receive_all(fd, &count, sizeof count)) return false;
  strings.assign(count, "");
  for (auto& s : strings) {
    uint32_t size = 0;
    if (!receive_all(fd, &size, sizeof size)) return false;
    s.resize(size);
    if (size > 0 && !receive_all(fd, s.data(), size)) return false;
  }
  return true;
}

// The forked child: a fresh tune in all but its pid, run as run_child's exec'd child would be.
[[noreturn]] void run_command(const std::vector<std::string>& request, int fd, pid_t server_pid, ForkServerEntry entry) {
  close(fd);
  Server& s = server();  // this child runs its commands itself
  s.pid = 0;
  s.socket = -1;
  signal(SIGINT, SIG_DFL);  // the server ignores Ctrl-C (tune decides); a trial must not inherit that
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != server_pid) _exit(128 + SIGKILL);
  append_output_to(request.front());
  std::vector<char*> argv;
  for (size_t i = 1; i < request.size(); ++i) argv.push_back(const_cast<char*>(request[i].c_str()));
  argv.push_back(nullptr);
  const int code = entry(static_cast<int>(argv.size()) - 1, argv.data());
  // Its files are closed and its output flushed here; exit()'s static destructors (libtorch's registries)
  // took ~0.17 s of a ~0.5 s tiny trial and serve no one in a child about to vanish.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(code);
}

[[noreturn]] void serve(int fd, pid_t parent, ForkServerEntry entry) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);
  signal(SIGINT, SIG_IGN);
  const pid_t self = getpid();
  for (std::vector<std::string> request; receive_strings(fd, request);) {
    if (request.size() < 2) _exit(1);
    const pid_t pid = fork();
    if (pid == 0) run_command(request, fd, self, entry);
    if (pid > 0) setpgid(pid, pid);  // also here, so the group exists before tune may kill it
    const int32_t reply = pid > 0 ? pid : -errno;
    if (!send_all(fd, &reply, sizeof reply)) _exit(0);
    if (pid < 0) continue;
    const int32_t wait_status = reap_with_group(pid);
    if (!send_all(fd, &wait_status, sizeof wait_status)) _exit(0);
  }
  _exit(0);  // tune closed its end
}

// Waits for the child's wait status until the deadline or a stop request; false when either came first (the
// child still runs).
bool wait_status_until(int fd, std::chrono::steady_clock::time_point deadline, int32_t& status) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || stop_signal() != 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("fork server: poll: ") + std::strerror(errno));
    if (ready > 0) {
      if (!receive_all(fd, &status, sizeof status)) throw std::runtime_error("fork server: it ended mid-command");
      return true;
    }
  }
}

}  // namespace

void start_fork_server(ForkServerEntry entry) {
  Server& s = server();
  if (s.pid > 0) return;
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error(std::string("fork server: socketpair: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork server: fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    serve(fds[1], parent, entry);
  }
  close(fds[1]);
  s.pid = pid;
  s.socket = fds[0];
  s.executable = self_executable();
}

bool fork_server_serves(const std::vector<std::string>& argv) {
  const Server& s = server();
  return s.pid > 0 && !argv.empty() && argv.front() == s.executable;
}

ChildOutcome run_in_fork_server(const std::vector<std::string>& argv, const std::string& log_path,
                                double timeout_seconds) {
  Server& s = server();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> request{log_path};
  request.insert(request.end(), argv.begin(), argv.end());
  int32_t pid = 0;
  if (!send_strings(s.socket, request) || !receive_all(s.socket, &pid, sizeof pid))
    throw std::runtime_error("fork server: it is gone (cannot start '" + argv.front() + "')");
  if (pid < 0) throw std::runtime_error("fork server: cannot fork for '" + argv.front() + "': " + std::strerror(-pid));
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(timeout_seconds));
  ChildOutcome outcome;
  int32_t status = 0;
  if (!wait_status_until(s.socket, deadline, status)) {
    kill(-pid, SIGKILL);
    if (!receive_all(s.socket, &status, sizeof status)) throw std::runtime_error("fork server: it ended mid-command");
    outcome.stopped = stop_signal() != 0;
    outcome.timed_out = !outcome.stopped;
  } else {
    record_wait_status(outcome, status);
  }
  outcome.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

}  // namespace tune
