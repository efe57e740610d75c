// Paired trials: one process builds every backend's step from the same seed and alternates their blocks,
// so process-to-process differences (memory layout, CPU frequency, a co-tenant's cache use) hit both sides
// of each round's ratio alike. Blocks are timed with the spec's step clock (CPU time in tune regress).
#include "trial/paired_trial.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "trial/calibration_step.h"
#include "trial/step_loop.h"
#include "trial/trial_runner.h"
#include "trial/warning_capture.h"
#include "util/table_format.h"

namespace tune {
namespace {

// One backend of the trial: its own model, step, loop and random stream (dropout draws), so neither
// backend's draws shift the other's.
struct Member {
  TrialSpec spec;
  TrialResult r;
  std::unique_ptr<TrainStep> step;
  std::unique_ptr<StepLoop> loop;
  torch::Tensor rng_state;
  std::vector<double> block_times;
  bool running = true;
};

void check_paired_spec(const TrialSpec& spec) {
  if (spec.paired.backends.empty() || spec.paired.rounds < 1 || spec.paired.block_steps < 1)
    throw std::invalid_argument(strf("paired trial with %zu paired backend(s), %d round(s) of %d step(s): expected "
                                     "at least one of each", spec.paired.backends.size(), spec.paired.rounds,
                                     spec.paired.block_steps));
}

TrialSpec member_spec(const TrialSpec& spec, const std::string& backend) {
  TrialSpec s = spec;
  s.step.backend = backend;
  const std::string& slowed = spec.test.slowed_backend.empty() ? spec.step.backend : spec.test.slowed_backend;
  s.test.inject_slowdown = backend == slowed ? spec.test.inject_slowdown : 0;
  return s;
}

void stop_member(Member& m, TrialStatus status, const std::string& stage, const std::string& message) {
  m.running = false;
  m.r.status = status;
  m.r.error_stage = stage;
  m.r.error_message = message;
}

// Runs `work` on m's random stream; an exception stops m alone (the other backends go on).
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

// The calibration workload is seeded like a model (build_model seeds with spec.seed before building).
std::unique_ptr<TrainStep> build_member_step(const TrialSpec& spec, TrialResult& r) {
  if (spec.step.backend != kCalibrationBackend) return build_trial_step(spec, r);
  torch::manual_seed(spec.seed);
  return make_calibration_step(spec.model, spec.learning_rate, torch::Device(spec.step.device));
}

// Each model is built right after the generator is seeded with spec.seed (build_model), as in a lone trial.
std::vector<Member> build_members(const TrialSpec& spec, at::Generator& generator) {
  std::vector<std::string> backends{spec.step.backend};
  backends.insert(backends.end(), spec.paired.backends.begin(), spec.paired.backends.end());
  std::vector<Member> members(backends.size());
  for (size_t i = 0; i < backends.size(); ++i) {
    members[i].spec = member_spec(spec, backends[i]);
    members[i].step = build_member_step(members[i].spec, members[i].r);
    members[i].rng_state = generator.get_state();
  }
  return members;
}

void prepare_members(std::vector<Member>& members, const std::vector<Batch>& pool, at::Generator& generator) {
  for (Member& m : members) {
    on_member_stream(m, generator, "compile", [&] {
      if (!prepare_trial_step(m.spec, *m.step, pool.front(), m.r)) m.running = false;
    });
    if (m.running) m.loop = std::make_unique<StepLoop>(m.spec, *m.step, pool, m.r);
  }
}

// n steps of m; their times, or nothing when m stopped (diverged, crashed).
std::optional<std::vector<double>> run_block(Member& m, int n, at::Generator& generator) {
  std::optional<StepBlock> block;
  on_member_stream(m, generator, "step", [&] { block = m.loop->run(n); });
  if (!block) m.running = false;
  return block ? std::optional<std::vector<double>>(block->times) : std::nullopt;
}

void warm_up(std::vector<Member>& members, int steps, at::Generator& generator) {
  for (Member& m : members) {
    if (!m.running) continue;
    if (const auto times = run_block(m, steps, generator)) account_warmup({*times, {}}, m.r);
  }
}

// Rounds of one block per running backend; ends early when spec.step.backend, the reference of every ratio, stops.
void run_rounds(const TrialSpec& spec, std::vector<Member>& members, at::Generator& generator) {
  for (int round = 0; round < spec.paired.rounds && members.front().running; ++round) {
    for (size_t i : paired_block_order(members.size(), round)) {
      Member& m = members[i];
      if (!m.running) continue;
      const auto times = run_block(m, spec.paired.block_steps, generator);
      if (!times || times->empty()) continue;
      m.block_times.push_back(std::accumulate(times->begin(), times->end(), 0.0) / static_cast<double>(times->size()));
      m.r.step_times.insert(m.r.step_times.end(), times->begin(), times->end());
    }
  }
}

PairedPart part_of(const Member& m) {
  PairedPart p;
  p.backend = m.spec.step.backend;
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
TrialResult paired_result(const TrialSpec& spec, std::vector<Member>& members) {
  Member& native = members.front();
  TrialResult r = native.r;
  if (native.running) {
    r.status = TrialStatus::ok;
    summarise_steps(native.spec, r);
    r.steady_state_stop = strf("paired: %d rounds of %d steps per backend", spec.paired.rounds, spec.paired.block_steps);
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

TrialResult run_paired_trial_body(const TrialSpec& spec) {
  check_paired_spec(spec);
  WarningCapture warnings;
  at::Generator generator = at::globalContext().defaultGenerator(torch::Device(spec.step.device));
  std::vector<Member> members = build_members(spec, generator);
  const std::vector<Batch> pool = trial_batch_pool(spec);
  prepare_members(members, pool, generator);
  warm_up(members, spec.measure.warmup_steps, generator);
  run_rounds(spec, members, generator);
  TrialResult r = paired_result(spec, members);
  r.flops_per_step = trial_flops_per_step(spec, pool.front());
  r.warnings = warnings.messages();
  return r;
}

}  // namespace tune
