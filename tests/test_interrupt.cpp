// Interrupted and concurrent searches, as a user causes them: kill -9 mid-search and rerun (nothing
// committed is lost or re-run, no trial outlives tune), and two tune processes sharing one database.
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "test_helpers.h"

namespace {

using tune::testing::read_file;
using tune::testing::temp_dir;
using tune::testing::processes_mentioning;

// Starts `tune ARGS` in the background, its output to log_path; returns its pid.
pid_t start_tune(const std::vector<std::string>& args, const std::string& log_path) {
  const pid_t pid = fork();
  if (pid == 0) {
    freopen(log_path.c_str(), "w", stdout);
    dup2(fileno(stdout), STDERR_FILENO);
    std::vector<char*> argv{const_cast<char*>(TUNE_EXECUTABLE)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int committed_trials(const std::string& db_path) {
  sqlite3* db = nullptr;
  int count = 0;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM trials", -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
      count = sqlite3_column_int(stmt, 0);
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return count;
}

int reused_in(const std::string& output) {
  int reused = 0;
  const std::regex line(R"((\d+) reused from the store)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line); it != std::sregex_iterator(); ++it)
    reused += std::stoi((*it)[1]);
  return reused;
}

// Waits (up to 5 minutes) until the database holds at least `count` committed trials.
void wait_for_committed(const std::string& db, int count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (committed_trials(db) < count && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

}  // namespace

TEST(Interrupt, KillNineMidSearchThenRerunLosesAndRepeatsNothing) {
  const auto dir = temp_dir("kill");
  const std::string db = (dir / "t.db").string();
  const std::vector<std::string> args{"--model", "bert-tiny", "--backends", "eager,jit", "--precisions", "fp32", "--budget", "10m", "--db", db};
  const pid_t tune = start_tune(args, (dir / "first.log").string());
  wait_for_committed(db, 3);
  ASSERT_GE(committed_trials(db), 3) << read_file((dir / "first.log").string());
  kill(tune, SIGKILL);
  wait_exit_code(tune);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the kernel's kill, not a trial finishing
  EXPECT_EQ(processes_mentioning(dir.string()), 0) << "a trial outlived the killed tune";
  const int committed = committed_trials(db);

  const pid_t rerun = start_tune(args, (dir / "rerun.log").string());
  ASSERT_EQ(wait_exit_code(rerun), 0) << read_file((dir / "rerun.log").string());
  const std::string output = read_file((dir / "rerun.log").string());
  EXPECT_GE(reused_in(output), committed) << output;  // every committed trial is reused, none re-run
  EXPECT_NE(output.find("| bert-tiny"), std::string::npos) << output;
}

TEST(Interrupt, TwoSearchesShareOneDatabase) {
  const auto dir = temp_dir("shared-db");
  const std::string db = (dir / "t.db").string();
  const pid_t a = start_tune({"--model", "bert-tiny", "--backends", "eager", "--precisions", "fp32", "--budget", "10m", "--db", db},
                             (dir / "a.log").string());
  const pid_t b = start_tune({"--model", "gpt2-tiny", "--backends", "eager", "--precisions", "fp32", "--budget", "10m", "--db", db},
                             (dir / "b.log").string());
  EXPECT_EQ(wait_exit_code(a), 0) << read_file((dir / "a.log").string());
  EXPECT_EQ(wait_exit_code(b), 0) << read_file((dir / "b.log").string());
  const pid_t table = start_tune({"table", "--db", db}, (dir / "table.log").string());
  ASSERT_EQ(wait_exit_code(table), 0);
  const std::string rows = read_file((dir / "table.log").string());
  EXPECT_NE(rows.find("| bert-tiny"), std::string::npos) << rows;
  EXPECT_NE(rows.find("| gpt2-tiny"), std::string::npos) << rows;
}

namespace {

std::string pinned_settings(const std::filesystem::path& dir) {
  std::ofstream(dir / "pinned.yaml") << "min_batch_size: 8\nmax_batch_size: 8\n";
  return (dir / "pinned.yaml").string();
}

}  // namespace

// Ctrl-C (SIGINT) mid-search: the trial in flight is killed and discarded, the best so far printed, exit 130;
// nothing left running, and the same command resumes with every committed trial reused.
TEST(Interrupt, SigintStopsGracefullyWithTheBestSoFarAndTheRerunResumes) {
  const auto dir = temp_dir("sigint");
  const std::string db = (dir / "t.db").string();
  const std::vector<std::string> args{"--model", "bert-tiny", "--backends", "eager", "--precisions", "fp32", "--seq-len",
                                      "32", "--budget", "10m", "--settings", pinned_settings(dir), "--db", db};
  const pid_t tune = start_tune(args, (dir / "first.log").string());
  wait_for_committed(db, 2);
  ASSERT_GE(committed_trials(db), 2) << read_file((dir / "first.log").string());
  kill(tune, SIGINT);
  EXPECT_EQ(wait_exit_code(tune), 130);
  const std::string output = read_file((dir / "first.log").string());
  EXPECT_NE(output.find("tune: stopped by SIGINT"), std::string::npos) << output;
  EXPECT_NE(output.find("| bert-tiny"), std::string::npos) << output;  // the best so far
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(processes_mentioning(dir.string()), 0) << "a trial outlived the stopped tune";
  const int committed = committed_trials(db);
  const pid_t rerun = start_tune(args, (dir / "rerun.log").string());
  ASSERT_EQ(wait_exit_code(rerun), 0) << read_file((dir / "rerun.log").string());
  EXPECT_GE(reused_in(read_file((dir / "rerun.log").string())), committed);
}

// A trial child that leaves a grandchild running in its process group: the grandchild is killed when the trial
// ends, so no process outlives the search (the fault is injected by TUNE_TEST_FAULT, test only).
TEST(Interrupt, AGrandchildATrialLeavesRunningIsKilledWithIt) {
  const auto dir = temp_dir("grandchild");
  setenv("TUNE_TEST_FAULT", "grandchild", 1);
  const pid_t tune = start_tune({"--model", "bert-tiny", "--backends", "eager", "--precisions", "fp32", "--seq-len",
                                 "32", "--budget", "10m", "--max-trials", "1", "--settings", pinned_settings(dir),
                                 "--db", (dir / "t.db").string()},
                                (dir / "log").string());
  unsetenv("TUNE_TEST_FAULT");
  EXPECT_EQ(wait_exit_code(tune), 0) << read_file((dir / "log").string());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(processes_mentioning(dir.string()), 0) << "a grandchild of a trial outlived the search";
}
