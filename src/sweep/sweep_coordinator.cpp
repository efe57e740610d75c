// The sweep's control loop: poll, handle ended attempts (retry or give up), merge finished databases, submit
// what is pending, save the state after every change, so a coordinator killed at any point resumes where it was.
#include "sweep/sweep_coordinator.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>

#include "report/table_reporters.h"
#include "report/tested_models_table.h"
#include "store/database.h"
#include "util/duration.h"

namespace tune {
namespace {

namespace fs = std::filesystem;

double unix_seconds() { return static_cast<double>(std::time(nullptr)); }

// flock is released by the kernel when its holder dies, kill -9 included: a restart never finds a stale lock.
class CoordinatorLock {
 public:
  explicit CoordinatorLock(const std::string& state_dir) : path_(state_dir + "/coordinator.lock") {
    fd_ = open(path_.c_str(), O_RDWR | O_CREAT, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open the sweep lock '" + path_ + "'");
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      close(fd_);
      throw std::runtime_error("another tune sweep coordinates this sweep (it holds '" + path_ +
                               "'); use tune sweep --status to follow it");
    }
  }
  ~CoordinatorLock() { close(fd_); }

 private:
  std::string path_;
  int fd_ = -1;
};

const PlannedStudy* planned(const std::vector<PlannedStudy>& plan, const std::string& id) {
  for (const auto& s : plan)
    if (s.id == id) return &s;
  return nullptr;
}

// A study whose attempt just failed: recorded, then resubmitted unless it has had max_attempts or the sweep was
// cancelled.
void handle_failure(StudyRecord& r, const SweepSpec& spec, bool cancelled, std::ostream& out) {
  r.history.push_back("attempt " + std::to_string(r.attempts) + " (job " + r.job + "): " + r.reason);
  if (cancelled) {
    r.phase = StudyPhase::cancelled;
    out << "tune sweep: " << r.id << " cancelled: " << r.reason << "\n";
  } else if (r.attempts < spec.max_attempts) {
    out << "tune sweep: " << r.id << " failed: " << r.reason << "; resubmitting (attempt " << r.attempts + 1 << " of "
        << spec.max_attempts << "), its finished trials are reused\n";
    r.phase = StudyPhase::pending;
  } else {
    out << "tune sweep: " << r.id << " failed: " << r.reason << "; given up after " << r.attempts << " attempt(s)\n";
  }
}

void handle_ended(SweepState& state, const std::set<std::string>& was_active, const SweepSpec& spec,
                  std::ostream& out) {
  for (auto& r : state.studies)
    if (was_active.count(r.id) && r.phase == StudyPhase::failed) handle_failure(r, spec, state.cancelled, out);
}

void merge_study(StudyRecord& r, const SweepSpec& spec, const PlannedStudy& study, std::ostream& out) {
  const std::string db = study_db_path(spec, study);
  try {
    if (!fs::exists(db)) throw std::runtime_error("it ended without writing its database " + db);
    Database store(spec.store);
    const MergeCounts c = store.merge_from(db);
    r.merged = true;
    out << "tune sweep: " << r.id << " done: merged " << c.trials_added << " trial(s) into " << spec.store << " ("
        << c.trials_present << " there already)\n";
  } catch (const std::exception& e) {
    r.phase = StudyPhase::failed;
    r.reason = std::string("merge: ") + e.what();
    r.attempts = spec.max_attempts;  // running it again would not change what blocks the merge
    r.history.push_back(r.reason);
    out << "tune sweep: " << r.id << " not merged: " << e.what() << "\n";
  }
}

void merge_finished(SweepState& state, const SweepSpec& spec, const std::vector<PlannedStudy>& plan,
                    std::ostream& out) {
  for (auto& r : state.studies)
    if (r.phase == StudyPhase::done && !r.merged)
      if (const PlannedStudy* study = planned(plan, r.id)) merge_study(r, spec, *study, out);
}

std::set<std::string> active_ids(const SweepState& state) {
  std::set<std::string> ids;
  for (const auto& r : state.studies)
    if (is_active(r.phase)) ids.insert(r.id);
  return ids;
}

std::vector<PlannedStudy> pending_studies(const SweepState& state, const std::vector<PlannedStudy>& plan) {
  std::vector<PlannedStudy> pending;
  for (const auto& r : state.studies)
    if (r.phase == StudyPhase::pending)
      if (const PlannedStudy* study = planned(plan, r.id)) pending.push_back(*study);
  return pending;
}

void write_sweep_table(const SweepSpec& spec, std::ostream& out) {
  const Database store(spec.store);
  const std::string path = spec.state_dir + "/table.md";
  std::ofstream file(path);
  make_table_markdown_reporter()->write(file, gather_tested_models(store, spec.store));
  out << "tune sweep: table of " << spec.store << " written to " << path << "\n";
}

// The pending studies as the executor takes them: one at a time when it runs them in place (so the state is saved
// and each study merged between them), else all in one submission.
std::vector<std::vector<PlannedStudy>> submission_batches(const std::vector<PlannedStudy>& pending, bool one_at_a_time) {
  if (pending.empty()) return {};
  if (!one_at_a_time) return {pending};
  std::vector<std::vector<PlannedStudy>> batches;
  for (const auto& study : pending) batches.push_back({study});
  return batches;
}

void submit_pending(SweepState& state, const std::vector<PlannedStudy>& plan, const SweepSpec& spec,
                    Executor& executor, std::ostream& out) {
  const std::string path = sweep_state_path(spec.state_dir);
  for (const auto& batch : submission_batches(pending_studies(state, plan), executor.runs_in_place())) {
    executor.submit(batch, state);
    save_sweep_state(path, state);  // job ids on disk at once: a restart re-attaches instead of resubmitting
    std::set<std::string> submitted;
    for (const auto& s : batch) submitted.insert(s.id);
    handle_ended(state, submitted, spec, out);
    merge_finished(state, spec, plan, out);
    save_sweep_state(path, state);
  }
}

SweepState open_state(const SweepSpec& spec, const std::vector<PlannedStudy>& plan) {
  SweepState state = load_sweep_state(sweep_state_path(spec.state_dir));
  if (!state.executor.empty() && state.executor != spec.executor)
    throw std::invalid_argument(spec.file + ": executor '" + spec.executor + "', but the sweep in " + spec.state_dir +
                                " ran with '" + state.executor + "'; give another state_dir for a new sweep");
  state.sweep_file = spec.file;
  state.executor = spec.executor;
  sync_with_plan(state, plan);
  return state;
}

}  // namespace

SweepCounts count_studies(const SweepState& state, const std::vector<PlannedStudy>& plan, double now) {
  SweepCounts c;
  double budget_left = 0;
  for (const auto& r : state.studies) {
    const PlannedStudy* study = planned(plan, r.id);
    const double budget = study ? study->budget_seconds : 0;
    switch (r.phase) {
      case StudyPhase::pending: ++c.pending, budget_left += budget; break;
      case StudyPhase::queued: ++c.queued, budget_left += budget; break;
      case StudyPhase::running: ++c.running, budget_left += std::max(0.0, budget - (now - r.started_at)); break;
      case StudyPhase::done: ++c.done; break;
      case StudyPhase::failed: ++c.failed; break;
      case StudyPhase::cancelled: ++c.cancelled; break;
    }
  }
  c.eta_seconds = budget_left / std::max(1, c.running);
  return c;
}

std::string progress_line(const SweepCounts& c) {
  std::string line = std::to_string(c.pending) + " pending, " + std::to_string(c.queued) + " queued, " +
                     std::to_string(c.running) + " running, " + std::to_string(c.done) + " done, " +
                     std::to_string(c.failed) + " failed";
  if (c.cancelled) line += ", " + std::to_string(c.cancelled) + " cancelled";
  if (c.pending + c.queued + c.running > 0)
    line += "; ETA ~" + format_duration(c.eta_seconds) + " (budgets left, " + std::to_string(std::max(1, c.running)) +
            " at once)";
  return line;
}

int run_sweep(const SweepSpec& spec, Executor& executor, std::ostream& out) {
  fs::create_directories(spec.state_dir);
  const CoordinatorLock lock(spec.state_dir);
  const auto plan = plan_sweep(spec);
  const std::string path = sweep_state_path(spec.state_dir);
  SweepState state = open_state(spec, plan);
  state.cancelled = false;  // running the sweep again resumes a cancelled one
  for (auto& r : state.studies)  // an in-place study died with its coordinator: run it again (its trials are kept)
    if (executor.runs_in_place() && is_active(r.phase)) r.phase = StudyPhase::pending;
  save_sweep_state(path, state);
  out << "tune sweep " << spec.name << ": " << plan.size() << " studies, " << spec.executor << " executor, state in "
      << spec.state_dir << "\n";
  std::string last_line;
  double next_line_at = 0;
  for (;;) {
    const auto was_active = active_ids(state);
    state.cancelled = load_sweep_state(path).cancelled;  // tune sweep --cancel from another shell
    for (auto& r : state.studies)
      if (state.cancelled && r.phase == StudyPhase::pending) r.phase = StudyPhase::cancelled;
    executor.poll(state);
    handle_ended(state, was_active, spec, out);
    merge_finished(state, spec, plan, out);
    save_sweep_state(path, state);
    submit_pending(state, plan, spec, executor, out);
    const SweepCounts counts = count_studies(state, plan, unix_seconds());
    const std::string line = progress_line(counts);
    // A line when a count changes, else once a minute (the ETA alone changes every poll).
    if (line.substr(0, line.find(';')) != last_line.substr(0, last_line.find(';')) || unix_seconds() >= next_line_at) {
      out << "tune sweep: " << line << std::endl;
      last_line = line, next_line_at = unix_seconds() + 60;
    }
    if (counts.pending + counts.queued + counts.running == 0) {
      write_sweep_table(spec, out);
      return counts.failed + counts.cancelled > 0 ? 1 : 0;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(spec.poll_seconds));
  }
}

void print_sweep_status(const SweepSpec& spec, Executor& executor, std::ostream& out) {
  const auto plan = plan_sweep(spec);
  SweepState state = open_state(spec, plan);
  if (!executor.runs_in_place()) executor.poll(state);  // read only: the copy is not saved
  out << "tune sweep " << spec.name << " (" << spec.executor << ", " << spec.state_dir << ")\n";
  for (const auto& r : state.studies) {
    out << "  " << r.id << ": " << to_string(r.phase) << (r.merged ? " (merged)" : "") << ", attempt " << r.attempts
        << (r.job.empty() ? "" : ", job " + r.job) << "\n";
    for (const auto& line : r.history) out << "      " << line << "\n";
  }
  out << progress_line(count_studies(state, plan, unix_seconds())) << "\n";
}

void cancel_sweep(const SweepSpec& spec, Executor& executor, std::ostream& out) {
  const auto plan = plan_sweep(spec);
  const std::string path = sweep_state_path(spec.state_dir);
  SweepState state = open_state(spec, plan);
  state.cancelled = true;
  save_sweep_state(path, state);  // first: a coordinator polling now sees the cancel and resubmits nothing
  executor.cancel(state);
  save_sweep_state(path, state);
  out << "tune sweep " << spec.name << ": cancelled; " << progress_line(count_studies(state, plan, unix_seconds()))
      << "\n";
}

}  // namespace tune
