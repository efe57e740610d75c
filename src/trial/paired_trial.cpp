// Paired trials: one process builds every backend's step from the same seed and alternates their blocks,
// so process-to-process differences (memory layout, CPU frequency, a co-tenant's cache use) hit both sides
// of each round's ratio alike. Blocks are timed with the spec's step clock (CPU time in tune regress).
#include "trial/paired_trial.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <stdexcept>

#include <filesystem>

#include "trial/batch_dump.h"
#include "trial/calibration_step.h"
#include "trial/python_trial.h"
#include "trial/step_observers.h"
#include "trial/step_loop.h"
#include "trial/trial_runner.h"
#include "trial/warning_capture.h"
#include "util/table_format.h"

namespace tune {
namespace {

// One member of the trial: a backend, with or without an observer. An in-process one has its own model, step, loop
// and random stream (dropout draws), so neither member's draws shift the other's; a Python-worker one (inductor,
// hf-eager) its own worker process, idle while the others' blocks run.
struct Member {
  TrialSpec spec;
  TrialResult r;
  TrainableModel model;
  std::unique_ptr<TrainStep> step;
  std::unique_ptr<StepObserver> observer;
  std::unique_ptr<PythonWorker> worker;
  std::unique_ptr<StepRunner> runner;
  torch::Tensor rng_state;
  std::vector<double> block_times;
  bool running = true;
};

void check_paired_spec(const TrialSpec& spec) {
  if ((spec.paired.backends.empty() && spec.paired.observers.empty()) || spec.paired.rounds < 1 ||
      spec.paired.block_steps < 1)
    throw std::invalid_argument(strf("paired trial with %zu paired backend(s), %zu observer(s), %d round(s) of %d "
                                     "step(s): expected a backend or an observer, a round and a step",
                                     spec.paired.backends.size(), spec.paired.observers.size(), spec.paired.rounds,
                                     spec.paired.block_steps));
}

TrialSpec member_spec(const TrialSpec& spec, const std::string& backend, const std::string& observer) {
  TrialSpec s = spec;
  s.step.backend = backend;
  s.step.observer = observer;
  const std::string& slowed = spec.test.slowed_backend.empty() ? spec.step.backend : spec.test.slowed_backend;
  s.test.inject_slowdown = backend == slowed && observer.empty() ? spec.test.inject_slowdown : 0;
  if (observer.empty()) s.test.observer_fails_at_step = 0;
  return s;
}

void stop_member(Member& m, TrialStatus status, const std::string& stage, const std::string& message) {
  m.running = false;
  m.r.status = status;
  m.r.error_stage = stage;
  m.r.error_message = message;
}

// Runs `work` on m's random stream; an exception stops m alone (the other members go on).
template <typename Work>
void on_member_stream(Member& m, at::Generator& generator, const char* stage, Work work) {
  generator.set_state(m.rng_state);
  try {
    work();
  } catch (const std::exception& e) {
    stop_member(m, is_out_of_memory(e) ? TrialStatus::oom : TrialStatus::crashed, stage, e.what());
  }
  m.rng_state = generator.get_state();
}

// The calibration workload is seeded like a model (build_model seeds with spec.seed before building). A Python
// member's model is the worker's, built when it starts.
void build_member_step(Member& m, const std::string& work_dir) {
  if (runs_in_python(m.spec.step.backend)) return;
  if (m.spec.step.backend == kCalibrationBackend) {
    torch::manual_seed(m.spec.seed);
    m.step = make_calibration_step(m.spec.model, m.spec.learning_rate, torch::Device(m.spec.step.device));
    return;
  }
  m.step = build_trial_step(m.spec, m.r, &m.model);
  m.observer = make_trial_observer(m.spec, m.model, work_dir);
}

// The members: spec.step.backend, each paired backend, then spec.step.backend with each observer. Each model is
// built right after the generator is seeded with spec.seed (build_model), as in a lone trial.
std::vector<Member> build_members(const TrialSpec& spec, at::Generator& generator, const std::string& work_dir) {
  std::vector<std::pair<std::string, std::string>> parts{{spec.step.backend, spec.step.observer}};
  for (const auto& b : spec.paired.backends) parts.emplace_back(b, "");
  for (const auto& o : spec.paired.observers) parts.emplace_back(spec.step.backend, o);
  std::vector<Member> members(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    members[i].spec = member_spec(spec, parts[i].first, parts[i].second);
    build_member_step(members[i], work_dir);
    members[i].rng_state = generator.get_state();
  }
  return members;
}

// A Python member's worker, started on the batches at `batches`; false with m stopped when it fails to start.
bool start_worker_member(Member& m, const std::string& batches, const std::string& work_dir) {
  m.worker = std::make_unique<PythonWorker>(std::vector<std::string>{python_executable(), python_worker_script()});
  const auto ready = m.worker->start(m.spec, batches, work_dir.empty() ? "." : work_dir);
  if (const auto* failure = std::get_if<WorkerFailure>(&ready)) {
    stop_member(m, failure->status, failure->stage, failure->message);
    return false;
  }
  m.r.parameter_count = std::get<WorkerReady>(ready).parameter_count;
  m.runner = std::make_unique<WorkerStepRunner>(m.spec, *m.worker, std::get<WorkerReady>(ready).block_steps, m.r);
  return true;
}

void prepare_members(std::vector<Member>& members, const std::vector<Batch>& pool, at::Generator& generator,
                     const std::string& batches, const std::string& work_dir) {
  for (Member& m : members) {
    on_member_stream(m, generator, "compile", [&] {
      if (runs_in_python(m.spec.step.backend)) {
        start_worker_member(m, batches, work_dir);
      } else if (!prepare_trial_step(m.spec, *m.step, pool.front(), m.r)) {
        m.running = false;
      } else {
        m.runner = std::make_unique<StepLoop>(m.spec, *m.step, pool, m.r, m.observer.get());
      }
    });
  }
}

// n steps of m; its block (times, compile seconds), or nothing when m stopped (diverged, crashed, its tool threw).
std::optional<StepBlock> run_block(Member& m, int n, at::Generator& generator) {
  std::optional<StepBlock> block;
  on_member_stream(m, generator, "step", [&] { block = m.runner->run(n); });
  if (!block) m.running = false;
  return block;
}

void warm_up(std::vector<Member>& members, int steps, at::Generator& generator) {
  for (Member& m : members) {
    if (!m.running) continue;
    if (const auto block = run_block(m, steps, generator)) account_warmup(*block, m.r);
  }
}

using Clock = std::chrono::steady_clock;

// Whether a round after `rounds` done since `rounds_start` would end past `deadline` (at least two rounds run: one
// gives no interval).
bool next_round_overruns(int rounds, Clock::time_point rounds_start, Clock::time_point deadline) {
  if (rounds < 2) return false;
  const auto now = Clock::now();
  return now + (now - rounds_start) / rounds > deadline;
}

// Rounds of one block per running member; ends early when the first member, the reference of every ratio, stops, or
// when the next round would pass `deadline` (a tool that slows a full-size model's step 50x, anomaly mode in
// libtorch, would otherwise lose the whole trial to its timeout). The rounds that ran.
int run_rounds(const TrialSpec& spec, std::vector<Member>& members, at::Generator& generator,
               Clock::time_point deadline) {
  const auto rounds_start = Clock::now();
  int round = 0;
  for (; round < spec.paired.rounds && members.front().running; ++round) {
    if (next_round_overruns(round, rounds_start, deadline)) break;
    for (size_t i : paired_block_order(members.size(), round)) {
      Member& m = members[i];
      if (!m.running) continue;
      const auto block = run_block(m, spec.paired.block_steps, generator);
      if (!block || block->times.empty()) continue;
      const std::vector<double>& times = block->times;
      m.block_times.push_back(std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size()));
      m.r.step_times.insert(m.r.step_times.end(), times.begin(), times.end());
    }
  }
  return round;
}

// Ends each member: a worker's account (compile info, warnings, its tool's summary), an observer's output and
// summary. A tool that fails to finish (cannot write its trace) stops its member with that message.
void finish_members(std::vector<Member>& members) {
  for (Member& m : members) {
    if (m.worker) {
      if (const auto end = m.worker->finish()) {
        m.r.compile_info = end->compile_info;
        m.r.observer_summary = end->observer_summary;
        m.r.warnings.insert(m.r.warnings.end(), end->warnings.begin(), end->warnings.end());
      }
      m.worker.reset();
    }
    if (!m.observer) continue;
    try {
      m.r.observer_summary = m.observer->finish();
      m.r.observer_caveat = m.observer->caveat();
    } catch (const std::exception& e) {
      if (m.running) stop_member(m, TrialStatus::crashed, "observer", e.what());
    }
  }
}

PairedPart part_of(const Member& m) {
  PairedPart p;
  p.backend = m.spec.step.backend;
  p.observer = m.spec.step.observer;
  p.observer_summary = m.r.observer_summary;
  p.observer_caveat = m.r.observer_caveat;
  p.compile_info = m.r.compile_info;
  p.status = m.running ? TrialStatus::ok : m.r.status;
  if (!m.running) {
    p.error_stage = m.r.error_stage;
    p.error_message = m.r.error_message;
  }
  p.compile_seconds = m.r.compile_seconds;
  p.inject_slowdown = m.spec.test.inject_slowdown;
  p.block_times = m.block_times;
  p.losses = m.r.losses;
  return p;
}

// spec.step.backend's own result, with every backend's part.
TrialResult paired_result(const TrialSpec& spec, std::vector<Member>& members, int rounds) {
  Member& native = members.front();
  TrialResult r = native.r;
  if (native.running) {
    r.status = TrialStatus::ok;
    summarise_steps(native.spec, r);
    r.steady_state_stop = strf("paired: %d rounds of %d steps per backend", rounds, spec.paired.block_steps);
    if (rounds < spec.paired.rounds)
      r.steady_state_stop += strf(" (of %d: the next would have passed 80%% of the trial's timeout)", spec.paired.rounds);
  }
  for (const Member& m : members) r.paired.push_back(part_of(m));
  return r;
}

}  // namespace

std::vector<size_t> paired_block_order(size_t backends, int round) {
  std::vector<size_t> order(backends);
  std::iota(order.begin(), order.end(), size_t{0});
  if (round % 2) std::reverse(order.begin(), order.end());
  return order;
}

namespace {

// The batches for the Python members, written once (they train on the very batches the libtorch members do);
// removed however the trial ends. Empty path: no Python member.
struct WorkerBatches {
  std::string path;
  WorkerBatches(const std::vector<Member>& members, const std::vector<Batch>& pool, const std::string& work_dir) {
    for (const Member& m : members)
      if (runs_in_python(m.spec.step.backend)) {
        path = (std::filesystem::path(work_dir.empty() ? "." : work_dir) / "batches.pt").string();
        std::vector<Batch> on_cpu;
        for (const Batch& b : pool) on_cpu.push_back(b.to(torch::kCPU));
        dump_batches(on_cpu, path);
        return;
      }
  }
  ~WorkerBatches() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove(path, ignored);
  }
};

}  // namespace

TrialResult run_paired_trial_body(const TrialSpec& spec, const std::string& work_dir) {
  check_paired_spec(spec);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(0.8 * spec.timeout_seconds));
  WarningCapture warnings;
  at::Generator generator = at::globalContext().defaultGenerator(torch::Device(spec.step.device));
  std::vector<Member> members = build_members(spec, generator, work_dir);
  const std::vector<Batch> pool = trial_batch_pool(spec);
  const WorkerBatches batches(members, pool, work_dir);
  prepare_members(members, pool, generator, batches.path, work_dir);
  warm_up(members, spec.measure.warmup_steps, generator);
  const int rounds = run_rounds(spec, members, generator, deadline);
  finish_members(members);
  TrialResult r = paired_result(spec, members, rounds);
  r.flops_per_step = trial_flops_per_step(spec, pool.front());
  r.warnings = warnings.messages();
  return r;
}

}  // namespace tune
