// Runs one trial in this process. Timing: the first K steps (compile and warm-up) apart from the
// steady-state steps; the loss of every step is kept so learning-rate trials can be scored.
#include "trial/trial_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <numeric>

#include "compile/train_step.h"
#include "data/batch_source.h"
#include "data/training_data.h"
#include "models/model_factory.h"
#include "trial/device_memory.h"

namespace tune {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const c10::OutOfMemoryError*>(&e)) return true;
  const std::string what = e.what();
  return what.find("not enough memory") != std::string::npos || what.find("can't allocate") != std::string::npos ||
         what.find("out of memory") != std::string::npos;
}

int total_steps(const TrialSpec& spec) {
  return spec.purpose == TrialPurpose::learning_rate ? std::max(spec.train_steps, spec.warmup_steps + 1)
                                                     : spec.warmup_steps + spec.max_measure_steps;
}

// The last quarter of the curve (at least 2 steps): less fooled by one noisy batch than the last loss.
double tail_mean(const std::vector<double>& losses) {
  const size_t n = std::max<size_t>(2, losses.size() / 4);
  const size_t from = losses.size() > n ? losses.size() - n : 0;
  return std::accumulate(losses.begin() + from, losses.end(), 0.0) / static_cast<double>(losses.size() - from);
}

void summarise_steps(const TrialSpec& spec, TrialResult& r) {
  auto sorted = r.step_times;
  std::sort(sorted.begin(), sorted.end());
  r.step_time_median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / std::max<size_t>(1, sorted.size());
  double var = 0;
  for (double t : sorted) var += (t - mean) * (t - mean);
  r.step_time_cv = sorted.size() > 1 ? std::sqrt(var / (sorted.size() - 1)) / mean : 0;
  if (r.step_time_median > 0) {
    r.samples_per_second = spec.batch_size / r.step_time_median;
    r.tokens_per_second = r.samples_per_second * spec.seq_len;
  }
  r.compile_overhead_seconds =
      std::max(0.0, r.compile_seconds + r.first_steps_seconds - spec.warmup_steps * r.step_time_median);
  if (!r.losses.empty()) r.score_loss = tail_mean(r.losses);
}

// Runs the steps; returns false (with r.status set) when the loss diverges.
bool run_steps(const TrialSpec& spec, TrainStep& step, const std::vector<Batch>& pool, TrialResult& r) {
  const int steps = total_steps(spec);
  double measured = 0;
  const auto first_start = Clock::now();
  for (int i = 0; i < steps; ++i) {
    const auto t0 = Clock::now();
    const double loss = step.step(pool[i % pool.size()]).item<double>();
    const double dt = seconds_since(t0);
    r.losses.push_back(loss);
    if (!std::isfinite(loss)) {
      r.status = TrialStatus::diverged;
      r.error_stage = "step";
      r.error_message = "loss became " + std::to_string(loss) + " at step " + std::to_string(i + 1);
      return false;
    }
    if (i + 1 == spec.warmup_steps) r.first_steps_seconds = seconds_since(first_start);
    if (i < spec.warmup_steps) continue;
    r.step_times.push_back(dt);
    measured += dt;
    const int timed = static_cast<int>(r.step_times.size());
    const bool enough = timed >= spec.min_measure_steps && measured >= spec.measure_seconds;
    if (spec.purpose == TrialPurpose::throughput && enough) break;
  }
  return true;
}

TrialResult run_trial_body(const TrialSpec& spec) {
  TrialResult r;
  const torch::Device device(spec.device);
  auto model = build_model_with_weights(spec.model, spec.seed, spec.weights_dir, spec.attention);
  model.module->to(device);
  r.parameter_count = parameter_count(*model.module);
  model.module->train();
  std::string data_description;
  auto source = make_batch_source(spec.model, load_training_data(spec, &data_description), spec.seq_len,
                                  spec.batch_size, spec.seed + 1);
  std::fprintf(stderr, "tune: data: %s\n", data_description.c_str());
  std::vector<Batch> pool;
  for (int i = 0; i < std::min(total_steps(spec), 16); ++i) pool.push_back(source->next().to(device));
  auto step = make_train_step(spec.backend, model, StepOptions{spec.learning_rate, spec.precision, spec.optimizer});
  try {
    const CompileReport report = step->prepare(pool.front());
    r.compile_seconds = report.seconds;
    r.compile_info = report.info;
    std::fprintf(stderr, "tune: compiled training step (backend=%s) in %.2f s: %s\n", spec.backend.c_str(),
                 report.seconds, report.info.c_str());
  } catch (const CompileError& e) {
    return failed_result(TrialStatus::compile_error, e.stage, e.what());
  }
  if (!run_steps(spec, *step, pool, r)) return r;
  const std::string info = step->runtime_info();
  if (!info.empty()) r.compile_info += "; " + info;
  r.status = TrialStatus::ok;
  summarise_steps(spec, r);
  return r;
}

// Intra-op threads from the instance. The inter-op pool can be sized once per process, before any
// parallel work: a trial process does it first; a second in-process trial (tests) keeps the first size.
void set_trial_threads(int threads) {
  at::set_num_threads(threads);
  static const bool interop_sized = [] {
    try {
      at::set_num_interop_threads(1);
      return true;
    } catch (const c10::Error&) {
      return false;
    }
  }();
  (void)interop_sized;
}

}  // namespace

TrialResult run_trial_in_process(const TrialSpec& spec) {
  if (spec.threads > 0) set_trial_threads(spec.threads);
  if (!cap_device_memory(spec.device, spec.memory_limit_bytes))
    return failed_result(TrialStatus::invalid, "setup", "cannot cap " + spec.device + " memory at " +
                                                            std::to_string(spec.memory_limit_bytes) + " bytes");
  TrialResult r;
  try {
    r = run_trial_body(spec);
  } catch (const std::invalid_argument& e) {
    r = failed_result(TrialStatus::invalid, "setup", e.what());
  } catch (const std::exception& e) {
    r = failed_result(is_out_of_memory(e) ? TrialStatus::oom : TrialStatus::crashed, "run", e.what());
  }
  r.peak_memory_bytes = peak_device_memory(spec.device);
  return r;
}

}  // namespace tune
