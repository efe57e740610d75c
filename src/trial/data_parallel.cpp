// Data-parallel trials (trial/data_parallel.h): the ranks, their process group, the lockstep schedule both sides
// follow, and what rank 0 makes of a rank that failed.
#include "trial/data_parallel.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <thread>

#include "compile/gradient_reducer.h"
#include "stats/statistics.h"
#include "trial/backend_registry.h"
#include "trial/device_memory.h"
#include "trial/lr_schedule.h"
#include "trial/measurement.h"
#include "trial/nccl_group.h"
#include "trial/trial_runner.h"
#include "util/paths.h"
#include "util/process.h"
#include "util/table_format.h"

namespace tune {
namespace {

namespace fs = std::filesystem;
constexpr int kFaultStep = 3;  // the step (1-based) a TestHooks::rank_fault happens at

std::string in_dir(const std::string& work_dir, const std::string& name) {
  return (fs::path(work_dir.empty() ? "." : work_dir) / name).string();
}
std::string rank_name(int rank, const char* what) { return strf("rank-%d.%s", rank, what); }

// Every rank joins through a file store in the trial folder (rank 0 removed any earlier one before starting them):
// gloo on a CPU, NCCL on the rank's own GPU.
c10::intrusive_ptr<c10d::Backend> make_group(const TrialSpec& spec, int rank, const std::string& work_dir) {
  const auto store = c10::make_intrusive<c10d::FileStore>(in_dir(work_dir, "dp-store"), spec.distributed.ranks);
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(1000 * spec.distributed.collective_timeout_seconds));
  if (comm_backend(spec) == "nccl") return make_nccl_group(store, rank, spec.distributed.ranks, timeout);
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  options->threads = 1;  // its all-reduce runs on a thread of its own beside the rank's compute threads
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, spec.distributed.ranks, options);
}

// TEST ONLY: the failing rank's fault at kFaultStep (TestHooks::rank_fault).
void inject_rank_fault(const TrialSpec& spec, int rank, int step) {
  if (spec.test.rank_fault.empty() || rank != spec.test.failing_rank || step + 1 != kFaultStep) return;
  if (spec.test.rank_fault == "oom") throw std::bad_alloc();
  if (spec.test.rank_fault == "kill") raise(SIGKILL);
  if (spec.test.rank_fault == "hang") {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, nullptr);
    for (;;) pause();
  }
}

// One model and step on one rank, training that rank's rows of each global batch; with a reducer when it trains
// with the others (the parallel member), without one when rank 0 trains alone (the solo member).
class RankTrainer {
 public:
  RankTrainer(const TrialSpec& spec, int rank, c10::intrusive_ptr<c10d::Backend> group)
      : spec_(spec), rank_(rank), cuda_(torch::Device(spec.step.device).is_cuda()) {
    TrialResult ignored;
    step_ = build_trial_step(spec, ignored, &model_);
    pool_ = rank_pool(spec, rank);
    if (!prepare_trial_step(spec, *step_, pool_.front(), ignored))
      throw std::runtime_error("rank " + std::to_string(rank) + ": " + ignored.error_message);
    if (!group) return;
    std::vector<torch::Tensor> parameters;
    for (const auto& p : model_.module->parameters()) parameters.push_back(p);
    reducer_ = std::make_unique<GradientReducer>(parameters, group,
                                                 static_cast<int64_t>(spec.distributed.bucket_cap_mb * 1024 * 1024));
    reducer_->broadcast_parameters();  // one model on every rank, as DDP starts
    step_->set_gradient_sync([this] { reducer_->synchronize(); });
  }

  // n steps; their times (steady clock: CPU devices only) and, with a reducer, each one's exposed communication.
  std::vector<double> run(int n, std::vector<double>* exposed = nullptr) {
    std::vector<double> times;
    const std::vector<double> rates = scheduled_learning_rates(spec_, done_, n);
    for (int i = 0; i < n; ++i) {
      inject_rank_fault(spec_, rank_, done_);
      if (!rates.empty()) step_->set_learning_rate(rates[i]);
      const auto start = std::chrono::steady_clock::now();
      losses_.push_back(step_->step(pool_[done_++ % pool_.size()]));
      if (cuda_) torch::cuda::synchronize();  // the step's own time, not its launch time
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (exposed && reducer_) exposed->push_back(reducer_->exposed_seconds());
    }
    return times;
  }
  std::vector<double> losses() const {
    std::vector<double> out;
    for (const auto& l : losses_) out.push_back(l.item<double>());
    return out;
  }
  int buckets() const { return reducer_ ? reducer_->buckets() : 0; }
  const Batch& example() const { return pool_.front(); }

 private:
  // This rank's rows of the batches a one-process trial at the global batch trains on.
  static std::vector<Batch> rank_pool(const TrialSpec& spec, int rank) {
    std::string description;
    std::vector<Batch> pool;
    for (const Batch& b : trial_batches(global_batch_spec(spec), &description))
      pool.push_back(b.rows(static_cast<int64_t>(rank) * spec.batch_size, spec.batch_size).to(torch::Device(spec.step.device)));
    return pool;
  }

  const TrialSpec& spec_;
  int rank_;
  bool cuda_;
  TrainableModel model_;
  std::unique_ptr<TrainStep> step_;
  std::vector<Batch> pool_;
  std::unique_ptr<GradientReducer> reducer_;
  std::vector<torch::Tensor> losses_;
  int done_ = 0;
};

void barrier(c10d::Backend& group, const std::string& device) {
  std::vector<at::Tensor> token{torch::zeros({1}, torch::Device(device))};
  group.allreduce(token)->wait();  // an all-reduce of one value: every rank must enter it, under the group's timeout
}

// A GPU rank's device, made current (NCCL and the CUDA allocator work on the current device): one GPU per rank.
void select_rank_gpu(const TrialSpec& spec, const TrialSpec& share) {
  const torch::Device device(share.step.device);
  if (!device.is_cuda()) return;
  check_rank_gpus(spec.step.device, spec.distributed.ranks, static_cast<int>(torch::cuda::device_count()));
  c10::cuda::set_device(device.index());
}

// Each rank's share of the machine (rank_share_spec: its device, the spec's threads and a CPU's memory cap divided
// among the ranks). A cap that cannot be set is the setup's failure, as in a one-process trial: the rank would
// otherwise run unbounded.
void size_rank_process(const TrialSpec& spec, const TrialSpec& share) {
  select_rank_gpu(spec, share);
  if (spec.threads > 0) set_trial_threads(share.threads);
  if (spec.memory_limit_bytes > 0 && !cap_device_memory(share.step.device, share.memory_limit_bytes))
    throw std::invalid_argument("cannot cap " + share.step.device + " memory at " +
                                std::to_string(share.memory_limit_bytes) + " bytes (the trial's " +
                                std::to_string(spec.memory_limit_bytes) + " over " +
                                std::to_string(spec.distributed.ranks) + " ranks)");
}

// The parallel member's schedule on any rank: per round a barrier (while rank 0 trains alone, the others wait there)
// and a block. Rank 0 (figures given) keeps its peak memory after the parallel
// warm-up, before it builds its solo model (which would count in it), then runs that model alone around its
// barriers. The warm-up's step times (a learning-rate trial's every step).
std::vector<double> run_parallel_schedule(const TrialSpec& spec, c10d::Backend& group, RankTrainer& parallel,
                                          DataParallelPart* figures) {
  const DataParallelSchedule s(spec);
  const std::vector<double> warmup_times = parallel.run(s.warmup);
  std::unique_ptr<RankTrainer> solo;
  if (figures) {
    figures->rank_peak_memory_bytes.push_back(peak_device_memory(spec.step.device));
    if (s.rounds > 0) {
      solo = std::make_unique<RankTrainer>(spec, 0, nullptr);
      solo->run(spec.measure.warmup_steps);
    }
  }
  for (int round = 0; round < s.rounds; ++round) {
    const bool solo_first = round % 2 == 0;  // alternated, so drift favours neither side
    if (solo && solo_first) figures->solo_block_times.push_back(mean(solo->run(s.block)));
    barrier(group, spec.step.device);
    std::vector<double> exposed;
    const std::vector<double> times = parallel.run(s.block, &exposed);
    if (figures) {
      figures->parallel_block_times.push_back(mean(times));
      figures->exposed_comm_seconds.insert(figures->exposed_comm_seconds.end(), exposed.begin(), exposed.end());
    }
    if (solo && !solo_first) figures->solo_block_times.push_back(mean(solo->run(s.block)));
  }
  barrier(group, spec.step.device);  // the last step's all-reduce is done on every rank before any leaves
  return warmup_times;
}

}  // namespace

int run_data_parallel_rank(const TrialSpec& spec, int rank, const std::string& work_dir, const std::string& out) {
  TrialResult r;
  TrialSpec share = spec;
  try {
    check_data_parallel_spec(spec);
    share = rank_share_spec(spec, rank);
    size_rank_process(spec, share);
    const auto group = make_group(share, rank, work_dir);
    RankTrainer parallel(share, rank, group);
    run_parallel_schedule(share, *group, parallel, nullptr);
    r.status = TrialStatus::ok;
    r.losses = parallel.losses();
  } catch (const std::invalid_argument& e) {
    r = failed_result(TrialStatus::invalid, "rank " + std::to_string(rank), e.what());
  } catch (const std::exception& e) {
    r = failed_result(is_out_of_memory(e) ? TrialStatus::oom : TrialStatus::crashed, "rank " + std::to_string(rank),
                      e.what());
  }
  r.peak_memory_bytes = peak_device_memory(share.step.device);
  std::ofstream(out) << nlohmann::json(r).dump();
  return r.ok() ? 0 : 1;
}

namespace {

// Ranks 1..N-1, started by rank 0 in its process group and tied to it; whatever is still running when this ends
// (rank 0 failed, or gave up on a hung rank) is killed and reaped.
class RankProcesses {
 public:
  RankProcesses(const TrialSpec& spec, const std::string& work_dir) : work_dir_(work_dir) {
    for (int rank = 1; rank < spec.distributed.ranks; ++rank) {
      TrialSpec own = spec;
      own.distributed.rank = rank;
      const std::string spec_file = in_dir(work_dir, rank_name(rank, "spec.json"));
      std::ofstream(spec_file) << nlohmann::json(own).dump();
      const std::vector<std::string> argv{self_executable(), "trial", "--rank", std::to_string(rank), "--spec",
                                          spec_file, "--out", in_dir(work_dir, rank_name(rank, "json")),
                                          "--dir", work_dir.empty() ? "." : work_dir};
      const pid_t parent = getpid();
      const pid_t pid = fork();
      if (pid < 0) throw std::runtime_error("cannot start rank " + std::to_string(rank));
      if (pid == 0) exec_tied_to(parent, argv);
      ranks_.push_back({rank, pid});
    }
  }
  ~RankProcesses() { kill_running(); }

  // Waits up to `seconds` for every rank to end by itself; then kills the rest (`killed` says which).
  void wait_or_kill(double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline && reap(WNOHANG) > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kill_running();
  }

  // The first rank (in rank order) that failed by itself: its status and why, from its result file or its end.
  std::optional<TrialResult> first_failure() const {
    for (const Rank& k : ranks_) {
      if (k.killed_by_us) continue;
      const TrialResult own = rank_result(k.rank);
      if (own.status != TrialStatus::ok && !own.error_message.empty()) return own;
      if (WIFSIGNALED(k.status))
        return failed_result(WTERMSIG(k.status) == SIGKILL ? TrialStatus::oom : TrialStatus::crashed,
                             "rank " + std::to_string(k.rank),
                             strf("rank %d was killed by signal %d%s", k.rank, WTERMSIG(k.status),
                                  WTERMSIG(k.status) == SIGKILL ? " (SIGKILL: the kernel's out-of-memory killer, or "
                                                                  "a kill -9)" : ""));
    }
    return std::nullopt;
  }
  // Ranks tune killed because they still ran after the trial had failed or its collectives timed out.
  std::vector<int> killed() const {
    std::vector<int> out;
    for (const Rank& k : ranks_)
      if (k.killed_by_us) out.push_back(k.rank);
    return out;
  }
  TrialResult rank_result(int rank) const {
    std::ifstream in(in_dir(work_dir_, rank_name(rank, "json")));
    try {
      return nlohmann::json::parse(in).get<TrialResult>();
    } catch (const std::exception&) {
      return failed_result(TrialStatus::crashed, "rank " + std::to_string(rank), "");
    }
  }

 private:
  struct Rank {
    int rank;
    pid_t pid;
    bool running = true, killed_by_us = false;
    int status = 0;
  };
  // Reaps ranks that ended; the number still running.
  int reap(int flags) {
    int running = 0;
    for (Rank& k : ranks_) {
      if (k.running && waitpid(k.pid, &k.status, flags) == k.pid) k.running = false;
      running += k.running;
    }
    return running;
  }
  void kill_running() {
    for (Rank& k : ranks_)
      if (k.running) {
        kill(k.pid, SIGKILL);
        k.killed_by_us = true;
      }
    reap(0);
  }

  std::string work_dir_;
  std::vector<Rank> ranks_;
};

// Rank 0's figures into the result: the ranks' losses, the other ranks' peak memory after rank 0's, the summary.
void summarise_parallel(const TrialSpec& spec, RankTrainer& parallel, const RankProcesses& others, TrialResult& r) {
  std::vector<std::vector<double>> losses{parallel.losses()};
  for (int rank = 1; rank < spec.distributed.ranks; ++rank) {
    const TrialResult own = others.rank_result(rank);
    losses.push_back(own.losses);
    r.data_parallel.rank_peak_memory_bytes.push_back(own.peak_memory_bytes);
  }
  r.data_parallel.buckets = parallel.buckets();
  summarise_data_parallel(spec, losses, r);
}

// What a failed trial was: a rank's own failure first (it caused the others' errors), then a hang (ranks that
// still ran when rank 0's collective timed out), then rank 0's own error.
TrialResult failure_of(const TrialSpec& spec, const std::exception& e, const RankProcesses& others) {
  if (auto own = others.first_failure()) return *own;
  const std::string what = e.what();
  if (!others.killed().empty() && what.find("imed out") != std::string::npos) {
    return failed_result(TrialStatus::timeout, "rank " + std::to_string(others.killed().front()),
                         strf("rank %d sent nothing for %.0f s (collective timeout): hung, killed with the other "
                              "ranks. Rank 0: %s", others.killed().front(), spec.distributed.collective_timeout_seconds,
                              what.substr(0, 300).c_str()));
  }
  return failed_result(is_out_of_memory(e) ? TrialStatus::oom : TrialStatus::crashed, "rank 0", what.substr(0, 4000));
}

}  // namespace

TrialResult run_data_parallel_trial(const TrialSpec& spec, const std::string& work_dir) {
  TrialSpec share = spec;
  try {
    check_data_parallel_spec(spec);
    share = rank_share_spec(spec, 0);
    size_rank_process(spec, share);
  } catch (const std::invalid_argument& e) {
    return failed_result(TrialStatus::invalid, "setup", e.what());
  }
  fs::remove(in_dir(work_dir, "dp-store"));
  TrialResult r;
  r.data_parallel.ranks = spec.distributed.ranks;
  r.data_parallel.per_rank_batch = spec.batch_size;
  r.data_parallel.comm_backend = comm_backend(spec);
  r.data_parallel.bucket_cap_mb = spec.distributed.bucket_cap_mb;
  RankProcesses others(spec, work_dir);
  try {
    const auto group = make_group(share, 0, work_dir);
    RankTrainer parallel(share, 0, group);
    keep_rate_trial_steps(spec, run_parallel_schedule(share, *group, parallel, &r.data_parallel), r);
    others.wait_or_kill(spec.distributed.collective_timeout_seconds);
    if (const auto failed = others.first_failure()) return *failed;
    summarise_parallel(spec, parallel, others, r);
    r.flops_per_step = trial_flops_per_step(global_batch_spec(spec), parallel.example());
  } catch (const std::exception& e) {
    others.wait_or_kill(2.0);  // a rank that failed by itself has ended (or ends now); a hung one is killed
    const TrialResult failed = failure_of(spec, e, others);
    r.status = failed.status, r.error_stage = failed.error_stage, r.error_message = failed.error_message;
  }
  return r;
}

}  // namespace tune
