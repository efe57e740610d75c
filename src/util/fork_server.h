// A fork server for tune's own child commands: started at the top of `tune --model ...`, before anything has
// touched libtorch, it runs each later `tune trial ...` by forking itself instead of exec'ing tune again.
#pragma once
#include <string>
#include <vector>

#include "util/process.h"

namespace tune {

// What a forked child runs: tune's main with the command's argv; its return value is the exit code.
using ForkServerEntry = int (*)(int argc, char** argv);

// Forks the server process (once per tune process; later calls do nothing). Call it while this process
// is single-threaded and has run no libtorch op: every child starts from the server's state, which is a
// fresh tune's after its shared libraries loaded (libtorch's static initialisation: ~0.4 s per exec here).
// The server dies with this process (PR_SET_PDEATHSIG), and its children with it.
void start_fork_server(ForkServerEntry entry);

// True when a server runs and argv[0] is this executable (the server can only run tune's own commands).
bool fork_server_serves(const std::vector<std::string>& argv);

// Runs argv in a child forked by the server, with run_child's contract: its own process group, output
// appended to log_path, killed (with its group) after timeout_seconds. Throws std::runtime_error when the
// server is gone.
ChildOutcome run_in_fork_server(const std::vector<std::string>& argv, const std::string& log_path,
                                double timeout_seconds);

}  // namespace tune
