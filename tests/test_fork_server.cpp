// The fork server runs this test binary's own "commands" (a test entry instead of tune's main) with
// run_child's contract: exit codes, signals and output in the log come back, a timeout kills the child,
// and other programs still start by exec.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "test_helpers.h"
#include "util/fork_server.h"
#include "util/paths.h"
#include "util/process.h"

using tune::testing::read_file;

namespace tune {
namespace {

// argv[1]: what to do; argv[2]: its argument.
int test_entry(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "exit") {
    std::cout << "child " << getpid() << " says " << argv[2] << "\n";
    return std::atoi(argv[2]);
  }
  if (what == "sleep") std::this_thread::sleep_for(std::chrono::seconds(std::atoi(argv[2])));
  if (what == "abort") std::abort();
  return 0;
}

TEST(ForkServer, RunsOwnCommandsWithRunChildsContract) {
  start_fork_server(test_entry);
  const std::string self = self_executable(), log = (testing::temp_dir("fork") / "log.txt").string();
  ASSERT_TRUE(fork_server_serves({self, "exit", "3"}));
  EXPECT_FALSE(fork_server_serves({"/bin/true"})) << "only this executable's commands";

  const ChildOutcome exited = run_child({self, "exit", "3"}, log, 30);
  EXPECT_EQ(exited.exit_code, 3);
  EXPECT_FALSE(exited.signaled);
  EXPECT_NE(read_file(log).find("says 3"), std::string::npos) << read_file(log);
  EXPECT_EQ(read_file(log).find("child " + std::to_string(getpid())), std::string::npos) << "ran in a child";

  const ChildOutcome aborted = run_child({self, "abort", "0"}, log, 30);
  EXPECT_TRUE(aborted.signaled);
  EXPECT_EQ(aborted.signal, SIGABRT);

  const auto start = std::chrono::steady_clock::now();
  const ChildOutcome slow = run_child({self, "sleep", "30"}, log, 0.5);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);

  // The server is still there after a killed child, and exec still serves other programs.
  EXPECT_EQ(run_child({self, "exit", "0"}, log, 30).exit_code, 0);
  EXPECT_EQ(run_child({"/bin/sh", "-c", "exit 4"}, log, 30).exit_code, 4);
}

}  // namespace
}  // namespace tune
