// Each fault as a function: prepare a scratch folder, run tune into the fault, look at what is left (exit code,
// message, store, processes), rerun where the fault says so, and count. Kill moments come from a seeded draw.
#include "tools/faults/fault_cases.h"

#include <signal.h>
#include <sys/mount.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <ostream>
#include <optional>
#include <random>
#include <regex>

#include "tools/faults/compile_cache_faults.h"
#include "tools/faults/fault_harness.h"

namespace tune::faults {
namespace fs = std::filesystem;
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Batch pinned at 8, so the rate search (by loss, bit-equal under equal seeds) decides the best config: a rerun's
// best is comparable exactly, with no timing noise in it.
std::string pinned_settings(const fs::path& dir) { return write_file(dir / "pinned.yaml", "min_batch_size: 8\nmax_batch_size: 8\n"); }

std::vector<std::string> search_args(const fs::path& db, const std::string& settings,
                                     const std::string& model = "bert-tiny") {
  return {"--model", model, "--backends", "eager", "--precisions", "fp32", "--seq-len", "32", "--budget", "10m",
          "--seed", "0", "--settings", settings, "--db", db.string()};
}

int trials_run_in(const std::string& output) {
  int total = 0;
  const std::regex line(R"((\d+) trials run)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line); it != std::sregex_iterator(); ++it)
    total += std::stoi((*it)[1]);
  return total;
}

struct Reference {
  double seconds = 0;
  std::vector<std::string> best;
};

// An uninterrupted search: how long it takes and what it chooses.
Reference reference_run(const MatrixContext& c, std::ostream& progress) {
  const fs::path dir = c.work / "reference";
  const double start = now();
  const Finished run = run_tune(c.tune, search_args(dir / "t.db", pinned_settings(dir)), (dir / "log.txt").string());
  Reference ref{now() - start, best_configs((dir / "t.db").string())};
  if (run.exit_code != 0 || ref.best.empty())
    throw std::runtime_error("the uninterrupted reference search failed:\n" + run.output);
  progress << "reference: " << ref.seconds << " s, " << ref.best.front() << "\n";
  return ref;
}

// The checks every interrupted run shares: after the interruption, what is committed; after the rerun, nothing
// of it lost or measured again, no duplicate, the uninterrupted run's best, a sound file, nothing left running.
struct Episode {
  bool ok = true;
  int lost = 0, duplicated = 0, committed = 0;
};

Episode rerun_and_check(const MatrixContext& c, const fs::path& dir, const std::string& settings,
                        const Reference& ref, FaultRow& row) {
  Episode e;
  const std::string db = (dir / "t.db").string();
  const Snapshot before = snapshot(db);
  e.committed = static_cast<int>(before.size());
  const int left = leftover_processes(dir.string());
  const Finished rerun = run_tune(c.tune, search_args(dir / "t.db", settings), (dir / "rerun.txt").string());
  const Snapshot after = snapshot(db);
  e.lost = lost_trials(before, after);
  e.duplicated = duplicate_rows(db) + remeasured_trials(before, after);
  const std::vector<std::string> best = best_configs(db);
  e.ok = left == 0 && rerun.exit_code == 0 && e.lost == 0 && e.duplicated == 0 && integrity_ok(db) &&
         best == ref.best && leftover_processes(dir.string()) == 0;
  if (!e.ok)
    row.observed += " [" + dir.filename().string() + ": left " + std::to_string(left) + ", rerun exit " +
                    std::to_string(rerun.exit_code) + ", best " + (best.empty() ? std::string("none") : best.front()) + "]";
  row.lost += e.lost;
  row.duplicated += e.duplicated;
  return e;
}

FaultRow kill_nine(const MatrixContext& c, const Reference& ref, std::ostream& progress) {
  FaultRow row{"tune killed (kill -9) at a random moment of the search, then rerun",
               "rerun exits 0; every committed trial kept and reused, none measured twice; no trial process left; "
               "best config equal to the uninterrupted run's"};
  std::mt19937_64 draw(c.seed);
  std::uniform_real_distribution<double> moment(0.0, ref.seconds);
  int committed = 0;
  for (int i = 0; i < c.kills; ++i) {
    const fs::path dir = c.work / ("kill-" + std::to_string(i));
    const std::string settings = pinned_settings(dir);
    const double at = moment(draw);
    const Started run = start_tune(c.tune, search_args(dir / "t.db", settings), (dir / "log.txt").string());
    sleep_seconds(at);
    kill(run.pid, SIGKILL);
    wait_tune(run);
    const Episode e = rerun_and_check(c, dir, settings, ref, row);
    committed += e.committed;
    row.runs++, row.survived += e.ok;
    progress << "kill -9 #" << i << " at " << at << " s: " << e.committed << " committed, " << (e.ok ? "ok" : "FAILED") << "\n";
  }
  row.observed = std::to_string(c.kills) + " kills at moments drawn uniformly over the " +
                 std::to_string(static_cast<int>(ref.seconds + 0.5)) + " s search (seed " + std::to_string(c.seed) +
                 "), " + std::to_string(committed) + " committed trials at the kills in all" + row.observed;
  return row;
}

// Whether the process has ended (a zombie not yet reaped, or gone): a stop sent now would test nothing.
bool has_ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() || text[close + 2] == 'Z';
}

// A search stopped by `signal` at `moment` seconds after its first committed trial; nothing when it had ended by
// then (its last trials were quicker than the drawn moment), so the caller tries again at once.
std::optional<Finished> stopped_search(const MatrixContext& c, const fs::path& dir, int signal, double moment) {
  const Started run = start_tune(c.tune, search_args(dir / "t.db", pinned_settings(dir)), (dir / "log.txt").string());
  wait_for_trials((dir / "t.db").string(), 1, 120);
  sleep_seconds(moment);
  if (has_ended(run.pid)) {
    wait_tune(run, 120);
    return std::nullopt;
  }
  kill(run.pid, signal);
  return wait_tune(run, 120);
}

FaultRow stop_signal(const MatrixContext& c, const Reference& ref, int signal, std::ostream& progress) {
  const std::string name = signal == SIGINT ? "SIGINT" : "SIGTERM";
  FaultRow row{name + " mid-search, then rerun",
               "exit " + std::to_string(128 + signal) + " with the best so far printed and the in-flight trial "
               "discarded (said so); no trial process left; the rerun as after kill -9"};
  std::mt19937_64 draw(c.seed + static_cast<uint64_t>(signal));
  std::uniform_real_distribution<double> moment(0.0, ref.seconds / 5);  // the search is still running then
  for (int i = 0; i < c.signal_runs; ++i) {
    fs::path dir = c.work / (name + "-" + std::to_string(i));
    std::optional<Finished> found = stopped_search(c, dir, signal, moment(draw));
    if (!found) {  // the search ended before the drawn moment: stop one right after its first committed trial
      dir = c.work / (name + "-" + std::to_string(i) + "-again");
      found = stopped_search(c, dir, signal, 0.0);
    }
    const std::string settings = (dir / "pinned.yaml").string();
    const Finished stopped = found.value_or(Finished{});
    const bool graceful = stopped.exit_code == 128 + signal && has(stopped.output, "stopped by " + name) &&
                          has(stopped.output, "trial in flight was discarded") && has(stopped.output, "| bert-tiny");
    if (!graceful) row.observed += " [" + dir.filename().string() + ": exit " + std::to_string(stopped.exit_code) + "]";
    const Episode e = rerun_and_check(c, dir, settings, ref, row);
    row.runs++, row.survived += graceful && e.ok;
    progress << name << " #" << i << ": exit " << stopped.exit_code << ", " << (graceful && e.ok ? "ok" : "FAILED") << "\n";
  }
  row.observed = std::to_string(row.runs) + " stops, each after the first committed trial; message: \"" +
                 line_from(read_file((c.work / (name + "-0") / "log.txt").string()), "tune: stopped by") + "\"" + row.observed;
  return row;
}

}  // namespace

namespace {

// Four tune processes at once on one database: four different models, or four times the same command.
FaultRow concurrent(const MatrixContext& c, bool identical, std::ostream& progress) {
  FaultRow row{identical ? "4 concurrent tune processes, the same search, one database"
                         : "4 concurrent tune processes, 4 different searches, one database",
               identical ? "all exit 0; each trial measured once (the others wait for it and reuse it); one best"
                         : "all exit 0; every study has its best; every trial a process ran is in the store"};
  const std::vector<std::string> models = identical ? std::vector<std::string>(4, "bert-tiny")
                                                    : std::vector<std::string>{"bert-tiny", "gpt2-tiny", "t5-tiny", "roberta-tiny"};
  const fs::path dir = c.work / (identical ? "concurrent-same" : "concurrent-different");
  const std::string settings = pinned_settings(dir), db = (dir / "t.db").string();
  std::vector<Started> runs;
  for (size_t i = 0; i < models.size(); ++i)
    runs.push_back(start_tune(c.tune, search_args(db, settings, models[i]), (dir / ("log-" + std::to_string(i) + ".txt")).string()));
  int exits_ok = 0, run_total = 0, waited = 0;
  for (const auto& r : runs) {
    const Finished f = wait_tune(r);
    exits_ok += f.exit_code == 0;
    run_total += trials_run_in(f.output);
    for (size_t at = f.output.find("waiting for it"); at != std::string::npos; at = f.output.find("waiting for it", at + 1)) ++waited;
  }
  const int stored = static_cast<int>(snapshot(db).size());
  const size_t bests = best_configs(db).size();
  row.runs = 1;
  // More trials measured than stored: of different studies (no shared key) that is a measured trial lost; of the
  // same study, a trial measured twice (the later row replaced the earlier).
  (identical ? row.duplicated : row.lost) = std::max(0, run_total - stored);
  row.duplicated += duplicate_rows(db);
  const bool ok = exits_ok == 4 && run_total == stored && bests == (identical ? 1u : 4u) && integrity_ok(db) &&
                  leftover_processes(dir.string()) == 0;
  row.survived = ok;
  row.observed = std::to_string(exits_ok) + "/4 exit 0; trials measured " + std::to_string(run_total) + ", stored " +
                 std::to_string(stored) + "; " + std::to_string(waited) + " waits for another process's trial; " +
                 std::to_string(bests) + " best configs";
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

}  // namespace

namespace {

// Fills what is left of the file system holding `path` (a file of zeros until it is refused).
void fill_file_system(const fs::path& path) {
  std::ofstream out(path, std::ios::binary);
  const std::string block(64 * 1024, '\0');
  while (out.write(block.data(), static_cast<std::streamsize>(block.size())) && out.flush()) {}
}

bool mount_tmpfs(const fs::path& dir, const std::string& size) {
  fs::create_directories(dir);
  return mount("tmpfs", dir.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
}

FaultRow disk_full(const MatrixContext& c, const Reference& ref, std::ostream& progress) {
  FaultRow row{"the disk fills up mid-search (a 16 MiB tmpfs holding the database and trial folders)",
               "a clear error naming the cause, not a hang; every earlier commit intact, the file sound; after "
               "space is freed the rerun completes with the uninterrupted best"};
  const fs::path dir = c.work / "disk-full";
  row.runs = 1;
  if (!mount_tmpfs(dir, "16m")) {
    row.observed = "not run: mounting a tmpfs needs root (CAP_SYS_ADMIN)";
    return row;
  }
  const std::string settings = pinned_settings(dir), db = (dir / "t.db").string();
  const Started run = start_tune(c.tune, search_args(dir / "t.db", settings), (c.work / "disk-full.log").string());
  wait_for_trials(db, 2, 120);
  const Snapshot before = snapshot(db);
  fill_file_system(dir / "filler");
  const Finished f = wait_tune(run, 300);
  const std::string message = line_from(f.output, "tune: failed");
  const Snapshot at_end = snapshot(db);
  const bool sound = integrity_ok(db);
  fs::remove(dir / "filler");
  const Finished rerun = run_tune(c.tune, search_args(dir / "t.db", settings), (c.work / "disk-full-rerun.log").string());
  row.lost = lost_trials(before, snapshot(db));
  row.duplicated = duplicate_rows(db) + remeasured_trials(before, snapshot(db));
  row.survived = !f.hung && f.exit_code != 0 && !message.empty() && sound && rerun.exit_code == 0 && row.lost == 0 &&
                 row.duplicated == 0 && best_configs(db) == ref.best;
  row.observed = "exit " + std::to_string(f.exit_code) + ": \"" + message + "\"; " + std::to_string(before.size()) +
                 " trials committed before the disk filled, " + std::to_string(at_end.size()) + " at the error; " +
                 "integrity " + (sound ? "ok" : "FAILED") + "; rerun exit " + std::to_string(rerun.exit_code);
  umount(dir.c_str());
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

// A read-only file system (a read-only bind mount): with the database in it, and without (a new one cannot be made).
FaultRow read_only(const MatrixContext& c, bool database_exists, std::ostream& progress) {
  FaultRow row{database_exists ? "the database on a read-only file system" : "a new database in a read-only folder",
               "a clear error naming the file, exit 2, before any trial runs; the file unchanged"};
  const fs::path dir = c.work / (database_exists ? "read-only-db" : "read-only-dir");
  fs::create_directories(dir);
  if (database_exists) fs::copy_file(c.work / "reference" / "t.db", dir / "t.db");
  const std::string settings = pinned_settings(c.work / "read-only-settings");
  row.runs = 1;
  if (mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
      mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
    row.observed = "not run: a read-only bind mount needs root (CAP_SYS_ADMIN)";
    return row;
  }
  const Snapshot before = snapshot((dir / "t.db").string());
  const Finished f = run_tune(c.tune, search_args(dir / "t.db", settings), (c.work / (dir.filename().string() + ".log")).string());
  const bool no_trial = !has(f.output, " ... ");
  row.lost = lost_trials(before, snapshot((dir / "t.db").string()));
  row.survived = f.exit_code == 2 && has(f.output, (dir / "t.db").string()) && no_trial && row.lost == 0;
  row.observed = "exit " + std::to_string(f.exit_code) + ": \"" + line_from(f.output, "tune: error") + "\"" +
                 (no_trial ? "; no trial ran" : "; a trial ran");
  umount(dir.c_str());
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

}  // namespace

namespace {

// How a child-fault row's search runs: more arguments, its backend, its trial timeout (a data-parallel trial of the
// Python worker starts a worker per rank, and a hung rank is found after the collective timeout and 10 s more).
struct ChildSearch {
  std::vector<std::string> extra;
  std::string backend = "eager";
  std::string trial_timeout = "20s";
};

// The search's batch-8 throughput trial misbehaves as TUNE_TEST_FAULT says; the ramp (4, 8, 16) goes on.
FaultRow child_fault(const MatrixContext& c, const std::string& fault, const std::string& what,
                     const std::string& status, std::ostream& progress, const ChildSearch& search = {}) {
  FaultRow row{"trial child: " + what,
               status == "ok" ? "the trial ends as usual and nothing it started outlives it; the search exits 0"
                              : "a typed " + status + " result for that trial, the search goes on (exit 0); nothing "
                                "left running"};
  const fs::path dir = c.work / ("child-" + fault + (search.backend == "eager" ? "" : "-" + search.backend));
  const std::string settings = write_file(dir / "ramp.yaml", "min_batch_size: 4\nmax_batch_size: 16\ntrial_timeout: " +
                                                                 search.trial_timeout + "\n");
  const std::string db = (dir / "t.db").string();
  std::vector<std::string> args = search_args(dir / "t.db", settings);
  *(std::find(args.begin(), args.end(), "--backends") + 1) = search.backend;
  args.insert(args.end(), search.extra.begin(), search.extra.end());
  const Finished f = run_tune(c.tune, args, (dir / "log.txt").string(),
                              {"TUNE_TEST_FAULT=" + fault, "TUNE_TEST_FAULT_BATCH=8"});
  const std::string trial_status = throughput_trial_field(db, 8, "status");
  const int left = leftover_processes(dir.string());
  row.runs = 1;
  row.duplicated = duplicate_rows(db);
  row.survived = f.exit_code == 0 && trial_status == status && left == 0 && integrity_ok(db);
  row.observed = "exit " + std::to_string(f.exit_code) + "; the batch-8 trial stored as " + trial_status + ": \"" +
                 first_line(throughput_trial_field(db, 8, "json_extract(result_json, '$.error_message')")) + "\"; " + std::to_string(left) + " processes left";
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

// A tool attached to the step throws mid-run (`--observers loss-log`, the observer trial's tool member failing at
// its step 3): the tool's part is a typed crash with its message, the bare step's rounds stand, the answer is
// printed, nothing left running.
FaultRow observer_throws(const MatrixContext& c, std::ostream& progress) {
  FaultRow row{"an observer (a tool attached to the step, --observers loss-log) throws at step 3 of its trial",
               "the tool's part of the observer trial stored as crashed with its message, the bare step's rounds "
               "kept, the search exits 0 with its answer; nothing left running"};
  const fs::path dir = c.work / "observer-throws";
  const std::string db = (dir / "t.db").string();
  std::vector<std::string> args = search_args(dir / "t.db", pinned_settings(dir));
  args.insert(args.end(), {"--observers", "loss-log"});
  const Finished f = run_tune(c.tune, args, (dir / "log.txt").string(), {"TUNE_TEST_FAULT=observer-throws"});
  const auto field = [&](const std::string& path) {
    const auto rows = query(db, "SELECT json_extract(result_json, '" + path + "') FROM trials WHERE purpose = 'paired'");
    return rows.empty() ? std::string() : rows.front();
  };
  const std::string tool = field("$.paired[1].status"), bare = field("$.paired[0].status");
  const int left = leftover_processes(dir.string());
  row.runs = 1;
  row.duplicated = duplicate_rows(db);
  row.survived = f.exit_code == 0 && tool == "crashed" && bare == "ok" && has(f.output, "## Answer") && left == 0 &&
                 integrity_ok(db);
  row.observed = "exit " + std::to_string(f.exit_code) + "; the tool's part stored as " + tool + ": \"" +
                 first_line(field("$.paired[1].error_message")) + "\"; the bare step " + bare + " with block times " +
                 field("$.paired[0].block_times") + "; " + std::to_string(left) + " processes left";
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

}  // namespace

namespace {

// The token cache's entries damaged between two searches (the second on a fresh database, same seeds).
FaultRow corrupt_token_cache(const MatrixContext& c, const Reference& ref, bool same_size, std::ostream& progress) {
  FaultRow row{same_size ? "token cache entries overwritten with garbage of the same size"
                         : "token cache entries truncated",
               "the damaged entry is detected and recomputed (or refused): the search exits 0 with the best of "
               "an undamaged cache"};
  const fs::path dir = c.work / (same_size ? "cache-garbage" : "cache-truncated"), cache = dir / "cache";
  const std::string settings = pinned_settings(dir), env = "TUNE_CACHE_DIR=" + cache.string();
  run_tune(c.tune, search_args(dir / "first.db", settings), (dir / "first.txt").string(), {env});
  int damaged = 0;
  std::map<fs::path, std::string> pristine;
  for (const auto& entry : fs::recursive_directory_iterator(cache)) {
    if (!entry.is_regular_file()) continue;
    pristine[entry.path()] = read_file(entry.path().string());
    const auto size = entry.file_size();
    if (same_size) {
      std::fstream f(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size / 2));
      const std::string garbage(std::min<uintmax_t>(size / 4, 4096), '\x7f');
      f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    } else {
      fs::resize_file(entry.path(), size / 2);
    }
    ++damaged;
  }
  const Finished f = run_tune(c.tune, search_args(dir / "t.db", settings), (dir / "log.txt").string(), {env});
  int recomputed = 0;  // an entry read back whole again: it was detected, encoded afresh and rewritten
  for (const auto& [path, bytes] : pristine) recomputed += read_file(path.string()) == bytes;
  row.runs = 1;
  const bool same_best = best_configs((dir / "t.db").string()) == ref.best;
  row.survived = damaged > 0 && recomputed == damaged && f.exit_code == 0 && same_best;
  row.observed = std::to_string(damaged) + " entries damaged, " + std::to_string(recomputed) +
                 " detected and rewritten whole; exit " + std::to_string(f.exit_code) + "; best " +
                 (same_best ? "equal to" : "DIFFERENT from") +
                 " the undamaged run's";
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

// A finished search's trial folders damaged (result.json garbage, spec.json gone, a folder deleted): the store,
// not the folders, is the record, so the rerun reuses every trial.
FaultRow corrupt_trial_folders(const MatrixContext& c, const Reference& ref, std::ostream& progress) {
  FaultRow row{"trial folders damaged after the search (result.json garbage, spec.json removed, a folder deleted)",
               "the rerun reuses every stored trial (the store is the record), exits 0, same best"};
  const fs::path dir = c.work / "trial-folders";
  const std::string settings = pinned_settings(dir), db = (dir / "t.db").string();
  run_tune(c.tune, search_args(dir / "t.db", settings), (dir / "first.txt").string());
  const Snapshot before = snapshot(db);
  int damaged = 0;
  std::vector<fs::path> folders;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "t-runs"))
    if (entry.is_regular_file() && entry.path().filename() == "spec.json") folders.push_back(entry.path().parent_path());
  for (size_t i = 0; i < folders.size(); ++i, ++damaged) {
    if (i % 3 == 0) std::ofstream(folders[i] / "result.json") << "\x01 garbage";
    if (i % 3 == 1) fs::remove(folders[i] / "spec.json");
    if (i % 3 == 2) fs::remove_all(folders[i]);
  }
  const Finished f = run_tune(c.tune, search_args(dir / "t.db", settings), (dir / "log.txt").string());
  const Snapshot after = snapshot(db);
  row.runs = 1;
  row.lost = lost_trials(before, after);
  row.duplicated = duplicate_rows(db) + remeasured_trials(before, after);
  row.survived = damaged > 0 && f.exit_code == 0 && row.lost == 0 && row.duplicated == 0 && best_configs(db) == ref.best;
  row.observed = std::to_string(damaged) + " folders damaged; rerun exit " + std::to_string(f.exit_code) + ", " +
                 std::to_string(trials_run_in(f.output)) + " trials run again";
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

// The --corpus file deleted while the search runs.
FaultRow deleted_corpus(const MatrixContext& c, std::ostream& progress) {
  FaultRow row{"the --corpus file deleted mid-search",
               "tune stops before the next trial with a clear error naming the file (no trial measures other "
               "data); every earlier commit intact"};
  const fs::path dir = c.work / "deleted-corpus";
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "the quick brown fox jumps over the lazy dog number " + std::to_string(i) + ".\n";
  const std::string corpus = write_file(dir / "corpus.txt", text), settings = pinned_settings(dir), db = (dir / "t.db").string();
  auto args = search_args(dir / "t.db", settings);
  args.insert(args.end(), {"--corpus", corpus});
  const Started run = start_tune(c.tune, args, (dir / "log.txt").string(), {"TUNE_CACHE_DIR=" + (dir / "cache").string()});
  wait_for_trials(db, 2, 120);
  const Snapshot before = snapshot(db);
  fs::remove(corpus);
  const Finished f = wait_tune(run, 300);
  row.runs = 1;
  row.lost = lost_trials(before, snapshot(db));
  row.duplicated = duplicate_rows(db);
  std::string said;
  said = line_from(f.output, "tune: failed");
  row.survived = !f.hung && f.exit_code == 1 && has(said, "corpus.txt") && row.lost == 0 && integrity_ok(db) &&
                 leftover_processes(dir.string()) == 0;
  row.observed = "exit " + std::to_string(f.exit_code) + "; " + std::to_string(before.size()) +
                 " trials committed before the deletion; said: \"" + said + "\"";
  progress << row.fault << ": " << row.observed << "\n";
  return row;
}

}  // namespace

std::vector<FaultRow> run_fault_matrix(const MatrixContext& c, std::ostream& progress) {
  const Reference ref = reference_run(c, progress);
  std::vector<FaultRow> rows;
  rows.push_back(kill_nine(c, ref, progress));
  rows.push_back(stop_signal(c, ref, SIGINT, progress));
  rows.push_back(stop_signal(c, ref, SIGTERM, progress));
  rows.push_back(concurrent(c, false, progress));
  rows.push_back(concurrent(c, true, progress));
  rows.push_back(disk_full(c, ref, progress));
  rows.push_back(read_only(c, true, progress));
  rows.push_back(read_only(c, false, progress));
  rows.push_back(child_fault(c, "result-truncated", "writes a truncated result.json", "crashed", progress));
  rows.push_back(child_fault(c, "result-empty", "writes an empty result.json", "crashed", progress));
  rows.push_back(child_fault(c, "result-garbage", "writes garbage as result.json", "crashed", progress));
  rows.push_back(child_fault(c, "result-missing", "exits 0 without a result.json", "crashed", progress));
  rows.push_back(child_fault(c, "hang", "hangs with every catchable signal blocked", "timeout", progress));
  rows.push_back(child_fault(c, "grandchild", "forks a grandchild that lingers (sleeps an hour)", "ok", progress));
  rows.push_back(observer_throws(c, progress));
  // Data-parallel trials (--ranks 2): rank 1 of the batch-8 trial killed at its step 3 (the kernel's OOM killer's
  // way), or hung with every signal blocked (rank 0's collective times out after 8 s and kills it); on libtorch's
  // route (eager) and the Python worker's (hf-eager: HF's module under DDP, a worker per rank).
  const ChildSearch ranks{{"--ranks", "2"}}, ddp{{"--ranks", "2"}, "hf-eager", "90s"};
  rows.push_back(child_fault(c, "rank-killed", "a data-parallel trial's rank killed with SIGKILL (--ranks 2)", "oom",
                             progress, ranks));
  rows.push_back(child_fault(c, "rank-hangs", "a data-parallel trial's rank hangs, every catchable signal blocked "
                             "(--ranks 2)", "timeout", progress, ranks));
  rows.push_back(child_fault(c, "rank-killed", "a data-parallel trial's rank killed with SIGKILL (--ranks 2, "
                             "hf-eager: a Python worker per rank under DDP)", "oom", progress, ddp));
  rows.push_back(child_fault(c, "rank-hangs", "a data-parallel trial's rank hangs, every catchable signal blocked "
                             "(--ranks 2, hf-eager: a Python worker per rank under DDP)", "timeout", progress, ddp));
  rows.push_back(corrupt_token_cache(c, ref, false, progress));
  rows.push_back(corrupt_token_cache(c, ref, true, progress));
  rows.push_back(corrupt_trial_folders(c, ref, progress));
  rows.push_back(deleted_corpus(c, progress));
  for (FaultRow& row : compile_cache_faults(c, progress)) rows.push_back(std::move(row));
  return rows;
}

}  // namespace tune::faults
