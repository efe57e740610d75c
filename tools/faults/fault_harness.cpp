// Process control by fork/exec and kill, and read-only SQLite queries on a database another process may be
// writing (its WAL is read as SQLite does; a busy file is retried).
#include "tools/faults/fault_harness.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace tune::faults {
namespace fs = std::filesystem;

std::vector<std::string> query(const std::string& db, const std::string& sql) {
  std::vector<std::string> rows;
  if (!fs::exists(db)) return rows;
  sqlite3* handle = nullptr;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(handle, 10000);
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK)
      while (sqlite3_step(statement) == SQLITE_ROW) {
        std::string row;
        for (int i = 0; i < sqlite3_column_count(statement); ++i) {
          const unsigned char* text = sqlite3_column_text(statement, i);
          row += (i ? "|" : "") + std::string(text ? reinterpret_cast<const char*>(text) : "");
        }
        rows.push_back(row);
      }
    sqlite3_finalize(statement);
  }
  sqlite3_close(handle);
  return rows;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string line_from(const std::string& output, const std::string& part) {
  const size_t at = output.find(part);
  return at == std::string::npos ? "" : output.substr(at, output.find('\n', at) - at);
}

std::string throughput_trial_field(const std::string& db, int batch, const std::string& column) {
  const auto rows = query(db, "SELECT " + column + " FROM trials WHERE purpose = 'throughput' AND batch_size = " +
                                  std::to_string(batch) + " ORDER BY id LIMIT 1");
  return rows.empty() ? "" : rows.front();
}

std::string write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

void sleep_seconds(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

Started start_tune(const std::string& tune, const std::vector<std::string>& args, const std::string& log,
                   const std::vector<std::string>& env) {
  std::fflush(nullptr);  // else the child's freopen would write this process's buffered output into its log
  const pid_t pid = fork();
  if (pid == 0) {
    if (!std::freopen(log.c_str(), "w", stdout)) _exit(126);
    dup2(fileno(stdout), STDERR_FILENO);
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv{const_cast<char*>(tune.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return {pid, log};
}

Finished wait_tune(const Started& run, double limit_seconds) {
  Finished out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_seconds);
  int status = 0;
  while (waitpid(run.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      out.hung = true;
      kill(run.pid, SIGKILL);
      waitpid(run.pid, &status, 0);
      break;
    }
    sleep_seconds(0.05);
  }
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  out.output = read_file(run.log);
  return out;
}

Finished run_tune(const std::string& tune, const std::vector<std::string>& args, const std::string& log,
                  const std::vector<std::string>& env) {
  return wait_tune(start_tune(tune, args, log, env));
}

int leftover_processes(const std::string& text, double settle_seconds) {
  sleep_seconds(settle_seconds);
  int found = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos || name == std::to_string(getpid())) continue;
    const std::string cmdline = read_file(entry.path() / "cmdline");
    const std::string state = read_file(entry.path() / "stat");
    const bool zombie = state.find(") Z") != std::string::npos;  // a zombie holds nothing but its pid
    if (!zombie && cmdline.find(text) != std::string::npos) ++found;
  }
  return found;
}

Snapshot snapshot(const std::string& db) {
  Snapshot out;
  for (const auto& row : query(db, "SELECT s.study_key || '/' || t.config_key, t.id, t.finished_at, t.status, "
                                   "t.result_json FROM trials t JOIN studies s ON s.id = t.study_id"))
    out[row.substr(0, row.find('|'))] = row;
  return out;
}

int lost_trials(const Snapshot& before, const Snapshot& after) {
  int lost = 0;
  for (const auto& [key, row] : before) lost += after.count(key) == 0;
  return lost;
}

int remeasured_trials(const Snapshot& before, const Snapshot& after) {
  int changed = 0;
  for (const auto& [key, row] : before) changed += after.count(key) && after.at(key) != row;
  return changed;
}

int duplicate_rows(const std::string& db) {
  const auto rows = query(db, "SELECT count(*) - count(DISTINCT study_id || '/' || config_key) FROM trials");
  return rows.empty() ? 0 : std::stoi(rows.front());
}

std::vector<std::string> best_configs(const std::string& db) {
  return query(db, "SELECT s.model || ' ' || s.backend || ' ' || s.precision || ': batch ' || b.batch_size || "
                   "', lr ' || b.learning_rate FROM best_configs b JOIN studies s ON s.id = b.study_id ORDER BY 1");
}

bool integrity_ok(const std::string& db) {
  const auto rows = query(db, "PRAGMA integrity_check");
  return rows.size() == 1 && rows.front() == "ok";
}

bool wait_for_trials(const std::string& db, int count, double limit_seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto rows = query(db, "SELECT count(*) FROM trials");
    if (!rows.empty() && std::stoi(rows.front()) >= count) return true;
    sleep_seconds(0.1);
  }
  return false;
}

}  // namespace tune::faults
