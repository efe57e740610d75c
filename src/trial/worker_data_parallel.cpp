// The Python worker's data-parallel trial (trial/worker_data_parallel.h): the ranks' workers, requests asked of all
// at once, which rank's failure the trial reports, and the schedule of rounds rank 0 drives.
#include "trial/worker_data_parallel.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <variant>

#include "stats/statistics.h"
#include "trial/data_parallel_figures.h"
#include "trial/lr_schedule.h"
#include "trial/measurement.h"
#include "trial/python_trial.h"
#include "util/table_format.h"

namespace tune {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kPatienceSeconds = 10;  // WorkerRanks's patience
template <typename Reply>
using Answer = std::variant<Reply, WorkerFailure>;

// Whether a rank's failure is the collectives' report of another rank's (a peer gone, a wait timed out in gloo or
// NCCL's watchdog).
bool collective_error(const WorkerFailure& f) {
  for (const char* mark : {"gloo", "Gloo", "DistBackendError", "Connection closed by peer", "Connection reset by peer",
                           "NCCL", "Watchdog caught collective operation timeout"})
    if (f.message.find(mark) != std::string::npos) return true;
  return false;
}

// A rank's failure as the trial's: its stage is the rank (as in libtorch's route), its message says the worker's stage.
TrialResult rank_failure(int rank, const WorkerFailure& f) {
  return failed_result(f.status, strf("rank %d", rank), strf("rank %d (%s): ", rank, f.stage.c_str()) + f.message);
}

// The ranks' workers, and requests asked of all of them at once.
class WorkerRanks {
 public:
  enum class Killed { no, hung, after_failure };

  // patience: how long the ranks still silent get to answer once a collective failed (in lockstep, the healthy
  // ones time out in the same collective within a step of each other).
  WorkerRanks(int ranks, const std::vector<std::string>& argv, double patience)
      : patience_(patience), killed_(ranks, Killed::no) {
    for (int k = 0; k < ranks; ++k) workers_.push_back(std::make_unique<PythonWorker>(argv));
  }
  int size() const { return static_cast<int>(workers_.size()); }
  PythonWorker& rank(int k) { return *workers_[k]; }
  Killed killed(int k) const { return killed_[k]; }
  double patience() const { return patience_; }

  // Every rank's answer to call(worker, rank), asked of all at once (each may wait in a collective for the others).
  // A rank's own failure ends the request: the ranks still silent are killed. After a collective's error, the rest
  // get `patience_` seconds to answer; a rank still silent then hangs, and is killed.
  template <typename Reply>
  std::vector<Answer<Reply>> all(const std::function<Answer<Reply>(PythonWorker&, int)>& call) {
    std::vector<std::future<Answer<Reply>>> pending;
    for (int k = 0; k < size(); ++k) pending.push_back(std::async(std::launch::async, call, std::ref(*workers_[k]), k));
    std::vector<std::optional<Answer<Reply>>> answers(size());
    std::optional<Clock::time_point> deadline;
    for (int left = size(); left > 0;) {
      for (int k = 0; k < size(); ++k) {
        if (answers[k] || pending[k].wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) continue;
        answers[k] = pending[k].get();
        --left;
        const auto* failure = std::get_if<WorkerFailure>(&*answers[k]);
        if (!failure || killed_[k] != Killed::no) continue;
        if (!collective_error(*failure)) kill_silent(answers, Killed::after_failure);
        if (!deadline) deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(1000 * patience_));
      }
      if (deadline && Clock::now() > *deadline) kill_silent(answers, Killed::hung);
    }
    std::vector<Answer<Reply>> out;
    for (auto& answer : answers) out.push_back(std::move(*answer));
    return out;
  }

 private:
  template <typename A>
  void kill_silent(const std::vector<std::optional<A>>& answers, Killed why) {
    for (int k = 0; k < size(); ++k)
      if (!answers[k] && killed_[k] == Killed::no) {
        workers_[k]->kill_process();
        killed_[k] = why;
      }
  }

  double patience_;
  std::vector<Killed> killed_;
  std::vector<std::unique_ptr<PythonWorker>> workers_;
};

// What a request's answers mean for the trial (worker_data_parallel.h's order); nothing when every rank answered.
template <typename Reply>
std::optional<TrialResult> failure_of(const std::vector<Answer<Reply>>& answers, const WorkerRanks& ranks) {
  std::optional<int> hung, consequence;
  for (int k = 0; k < static_cast<int>(answers.size()); ++k) {
    const auto* f = std::get_if<WorkerFailure>(&answers[k]);
    if (!f || ranks.killed(k) == WorkerRanks::Killed::after_failure) continue;
    if (ranks.killed(k) == WorkerRanks::Killed::hung) {
      hung = hung.value_or(k);
    } else if (!collective_error(*f)) {
      return rank_failure(k, *f);
    } else {
      consequence = consequence.value_or(k);
    }
  }
  if (hung)
    return failed_result(TrialStatus::timeout, strf("rank %d", *hung),
                         strf("rank %d sent nothing for the collective timeout and %.0f s after another rank's "
                              "collective failed: hung, killed with the other ranks", *hung, ranks.patience()));
  if (consequence) return rank_failure(*consequence, std::get<WorkerFailure>(answers[*consequence]));
  return std::nullopt;
}

// The trial in progress: every rank's parallel steps, rank 0's members alone, each with its own step count (the
// learning-rate schedule's position), and the ranks' parallel losses.
class RankSteps {
 public:
  RankSteps(const TrialSpec& spec, WorkerRanks& ranks, TrialResult& r)
      : spec_(spec), ranks_(ranks), r_(r), losses_(ranks.size()) {}

  // n parallel steps on every rank: rank 0's block, or nothing when the trial failed (r says how).
  std::optional<WorkerSteps> parallel(int n) {
    const std::vector<double> rates = scheduled_learning_rates(spec_, done_["parallel"], n);
    const auto answers = ranks_.all<WorkerSteps>([&](PythonWorker& w, int) { return w.steps(n, rates); });
    if (const auto failed = failure_of(answers, ranks_)) return fail(*failed);
    done_["parallel"] += n;
    for (int k = 0; k < ranks_.size(); ++k) {
      const auto& steps = std::get<WorkerSteps>(answers[k]);
      losses_[k].insert(losses_[k].end(), steps.losses.begin(), steps.losses.end());
    }
    return std::get<WorkerSteps>(answers[0]);
  }

  // n steps of rank 0's `member` alone: their mean time, or nothing when the trial failed.
  std::optional<double> alone(const std::string& member, int n) {
    const std::vector<double> rates =
        member == "solo" ? scheduled_learning_rates(spec_, done_[member], n) : std::vector<double>{};
    const auto answer = ranks_.rank(0).steps(n, rates, member);
    if (const auto* failure = std::get_if<WorkerFailure>(&answer)) return fail(rank_failure(0, *failure));
    done_[member] += n;
    return mean(std::get<WorkerSteps>(answer).times);
  }
  const std::vector<std::vector<double>>& losses() const { return losses_; }

 private:
  std::nullopt_t fail(const TrialResult& failed) {
    r_.status = failed.status, r_.error_stage = failed.error_stage, r_.error_message = failed.error_message;
    return std::nullopt;
  }
  const TrialSpec& spec_;
  WorkerRanks& ranks_;
  TrialResult& r_;
  std::map<std::string, int> done_;
  std::vector<std::vector<double>> losses_;
};

// The warm-up's first warmup_steps steps as the trial's warm-up (a learning-rate trial's warm-up is its train steps).
void account_parallel_warmup(const TrialSpec& spec, const WorkerSteps& warmup, TrialResult& r) {
  const size_t n = std::min(warmup.times.size(), static_cast<size_t>(std::max(spec.measure.warmup_steps, 0)));
  StepBlock first{{warmup.times.begin(), warmup.times.begin() + n}, {}};
  first.compile_seconds.assign(warmup.compile_seconds.begin(),
                               warmup.compile_seconds.begin() + std::min(n, warmup.compile_seconds.size()));
  account_warmup(first, r);
}

// One round's blocks in their order (alternating, so drift favours no member), into r.data_parallel.
bool run_round(int round, int block, RankSteps& steps, DataParallelPart& d) {
  const std::vector<std::string> order = round % 2 == 0 ? std::vector<std::string>{"solo", "unsynced", "parallel"}
                                                        : std::vector<std::string>{"parallel", "unsynced", "solo"};
  for (const std::string& member : order) {
    if (member == "parallel") {
      const auto steps_run = steps.parallel(block);
      if (!steps_run) return false;
      d.parallel_block_times.push_back(mean(steps_run->times));
      continue;
    }
    const auto seconds = steps.alone(member, block);
    if (!seconds) return false;
    (member == "solo" ? d.solo_block_times : d.unsynced_block_times).push_back(*seconds);
  }
  d.exposed_comm_seconds.push_back(std::max(0.0, d.parallel_block_times.back() - d.unsynced_block_times.back()));
  return true;
}

// The warm-up on every rank, rank 0's members' warm-ups, then the rounds. False when the trial failed.
bool run_schedule(const TrialSpec& spec, RankSteps& steps, TrialResult& r) {
  const DataParallelSchedule s(spec);
  const auto warmup = steps.parallel(s.warmup);
  if (!warmup) return false;
  account_parallel_warmup(spec, *warmup, r);
  keep_rate_trial_steps(spec, warmup->times, r);
  if (s.rounds > 0 && (!steps.alone("solo", spec.measure.warmup_steps) ||
                       !steps.alone("unsynced", spec.measure.warmup_steps)))
    return false;
  for (int round = 0; round < s.rounds; ++round)
    if (!run_round(round, s.block, steps, r.data_parallel)) return false;
  return true;
}

// Every rank's end of trial: rank 0's compile account and warnings, each rank's peak memory.
void keep_rank_accounts(const std::vector<Answer<WorkerFinish>>& ends, TrialResult& r) {
  for (size_t k = 0; k < ends.size(); ++k) {
    const auto* end = std::get_if<WorkerFinish>(&ends[k]);
    r.data_parallel.rank_peak_memory_bytes.push_back(end ? end->peak_memory_bytes : 0);
    if (k != 0 || !end) continue;
    keep_worker_finish(*end, r);
    r.data_parallel.buckets = end->buckets;
  }
}

Answer<WorkerFinish> finish_of(PythonWorker& worker) {
  if (auto end = worker.finish()) return *end;
  return WorkerFailure{TrialStatus::crashed, "worker", "the Python worker ended before its finish"};
}

TrialResult measure_on_ranks(const TrialSpec& spec, WorkerRanks& ranks, const std::string& batches_path,
                             const std::string& dir) {
  TrialResult r;
  r.data_parallel.ranks = spec.distributed.ranks;
  r.data_parallel.per_rank_batch = spec.batch_size;
  r.data_parallel.comm_backend = comm_backend(spec);
  r.data_parallel.bucket_cap_mb = spec.distributed.bucket_cap_mb;
  const auto ready = ranks.all<WorkerReady>(
      [&](PythonWorker& w, int k) { return w.start(rank_share_spec(spec, k), batches_path, dir); });
  if (const auto failed = failure_of(ready, ranks)) return *failed;
  r.parameter_count = std::get<WorkerReady>(ready.front()).parameter_count;
  RankSteps steps(spec, ranks, r);
  if (!run_schedule(spec, steps, r)) return r;
  keep_rank_accounts(ranks.all<WorkerFinish>([](PythonWorker& w, int) { return finish_of(w); }), r);
  summarise_data_parallel(spec, steps.losses(), r);
  return r;
}

}  // namespace

TrialResult run_worker_data_parallel_trial(const TrialSpec& spec, const std::string& batches_path,
                                           const std::string& dir, const std::vector<std::string>& worker_argv) {
  try {
    check_data_parallel_spec(spec);
  } catch (const std::invalid_argument& e) {
    return failed_result(TrialStatus::invalid, "setup", e.what());
  }
  std::error_code ignored;
  std::filesystem::remove(std::filesystem::path(dir) / "dp-store", ignored);  // a store left by an earlier trial
  try {
    WorkerRanks ranks(spec.distributed.ranks, worker_argv, kPatienceSeconds);
    return measure_on_ranks(spec, ranks, batches_path, dir);
  } catch (const std::exception& e) {  // a worker could not be started, or this side broke
    return failed_result(TrialStatus::crashed, "worker", e.what());
  }
}

}  // namespace tune
