// Signal handlers that only set a flag (async-signal-safe); the search polls it between and during trials.
// The second signal restores the default action and re-raises: a user pressing Ctrl-C twice is not kept waiting.
#include "util/stop_signals.h"

#include <signal.h>

namespace tune {
namespace {

volatile sig_atomic_t requested = 0;

void on_stop_signal(int signal_number) {
  if (requested != 0) {
    ::signal(signal_number, SIG_DFL);
    raise(signal_number);
    return;
  }
  requested = signal_number;
}

}  // namespace

void catch_stop_signals() {
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;  // SQLite's and the streams' system calls go on; waits poll the flag
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int stop_signal() { return requested; }

std::string stop_signal_name() {
  if (requested == SIGINT) return "SIGINT";
  if (requested == SIGTERM) return "SIGTERM";
  return requested == 0 ? "" : "signal " + std::to_string(requested);
}

int stopped_exit_code() { return requested == 0 ? 0 : 128 + requested; }

}  // namespace tune
