// A graceful stop on SIGINT or SIGTERM: tune notes the signal, kills the trial in flight (its result discarded),
// prints the best so far and exits 128 + the signal; a second signal ends tune at once.
#pragma once
#include <string>

namespace tune {

// From here on SIGINT and SIGTERM request a stop instead of ending the process.
void catch_stop_signals();
// The signal that requested a stop (SIGINT, SIGTERM), or 0.
int stop_signal();
// "SIGINT" / "SIGTERM" for a stop requested by that signal ("" for none).
std::string stop_signal_name();
// The exit code of a search a signal stopped: 128 + the signal, as a shell reports a process that signal ended.
int stopped_exit_code();

// Thrown where the work in flight (a trial) was abandoned because a stop was requested.
struct StopRequested {
  int signal = 0;
};

}  // namespace tune
