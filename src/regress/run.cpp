// Measures the regression set with paired trial processes (trial/paired_trial.h), one per model and repeat,
// each giving one paired speedup per compiled backend; reads and writes the run as the JSON reference.
#include "regress/run.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "stats/paired_ratio.h"
#include "stats/statistics.h"
#include "trial/trial_process.h"
#include "util/table_format.h"
#include "util/utc_time.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

std::string utc_now() { return utc_now_text("%Y-%m-%dT%H:%M:%SZ"); }

// The trial of one repeat: every backend still running, warmup + rounds * block_steps steps each and no
// stopping rule, so the loss after the last step is comparable between runs.
TrialSpec paired_spec(const RegressionConfig& c, const ModelConfig& model, const std::vector<std::string>& backends,
                      const RegressionRunContext& context) {
  TrialSpec spec;
  spec.model = model;
  spec.purpose = TrialPurpose::paired;
  spec.step.backend = backends.front();
  spec.paired.backends.assign(backends.begin() + 1, backends.end());
  spec.paired.rounds = c.rounds;
  spec.paired.block_steps = c.block_steps;
  spec.step.device = context.instance.device;
  spec.step.precision = c.precision;
  spec.seq_len = c.seq_len;
  spec.batch_size = c.batch_size;
  spec.learning_rate = c.learning_rate;
  spec.seed = c.seed;
  spec.measure.warmup_steps = c.warmup_steps;
  spec.threads = c.threads > 0 ? c.threads : context.instance.threads;
  spec.data.corpus_path = c.corpus;
  spec.measure.step_clock = c.step_clock;
  spec.timeout_seconds = c.trial_timeout_seconds;
  for (const auto& backend : backends)
    if (auto it = context.inject_slowdown.find(backend); it != context.inject_slowdown.end()) {
      spec.test.slowed_backend = backend;
      spec.test.inject_slowdown = it->second;
    }
  return spec;
}

void mark_failed(BackendSamples& samples, TrialStatus status, const std::string& stage,
                 const std::string& message, const std::string& trial_dir) {
  samples.status = status;
  samples.error = stage + ": " + message + " (trial folder " + trial_dir + ")";
}

void record_part(BackendSamples& samples, const PairedPart& part, const PairedPart& native, const std::string& dir) {
  samples.inject_slowdown = part.inject_slowdown;
  if (!part.ok() || part.losses.empty() || part.block_times.empty()) {
    mark_failed(samples, part.ok() ? TrialStatus::crashed : part.status, part.error_stage, part.error_message, dir);
    return;
  }
  samples.step_times.push_back(median(part.block_times));
  samples.losses.push_back(part.losses.back());
  if (&part != &native) samples.speedups.push_back(paired_speedup(native.block_times, part.block_times));
}

// A process that ended without its parts (timeout, crash, out of memory) fails every backend it ran.
void record_trial(ModelSamples& out, const std::vector<size_t>& running, const TrialResult& result,
                  const std::string& dir) {
  if (result.paired.size() != running.size()) {
    const TrialStatus status = result.ok() ? TrialStatus::crashed : result.status;
    for (size_t b : running) mark_failed(out.backends[b], status, result.error_stage, result.error_message, dir);
    return;
  }
  const PairedPart& native = result.paired.front();
  for (size_t i = 0; i < running.size() && (i == 0 || native.ok()); ++i)
    record_part(out.backends[running[i]], result.paired[i], native, dir);
}

std::string progress_line(const ModelSamples& out, const std::vector<size_t>& running, const TrialResult& result,
                          int repeat, int repeats) {
  std::string line = strf("tune regress: %s repeat %d/%d: %s", out.model.c_str(), repeat + 1, repeats,
                          to_string(result.status).c_str());
  for (size_t i = 0; i < result.paired.size() && i < running.size(); ++i) {
    const PairedPart& p = result.paired[i];
    if (p.block_times.empty() || p.losses.empty()) continue;
    line += strf("; %s %.3f ms, loss %.6f", p.backend.c_str(), 1e3 * median(p.block_times), p.losses.back());
    if (i > 0) line += strf(", x%.3f", paired_speedup(result.paired.front().block_times, p.block_times));
  }
  return line + "\n";
}

// The backends of the set still running, native first; none once the native backend failed.
std::vector<size_t> running_backends(const ModelSamples& out) {
  std::vector<size_t> running;
  if (!out.backends.front().ok()) return running;
  for (size_t b = 0; b < out.backends.size(); ++b)
    if (out.backends[b].ok()) running.push_back(b);
  return running;
}

ModelSamples measure_model(const RegressionConfig& c, const std::string& name, const RegressionRunContext& context) {
  const ModelConfig model = resolve_model(name);
  ModelSamples out{name, {}};
  for (const auto& backend : c.measured_backends()) out.backends.push_back({backend, {}, {}, {}, TrialStatus::ok, "", 0});
  for (int repeat = 0; repeat < c.repeats; ++repeat) {
    const std::vector<size_t> running = running_backends(out);
    if (running.size() < 2) break;  // nothing left to pair with the native backend
    std::vector<std::string> backends;
    for (size_t b : running) backends.push_back(out.backends[b].backend);
    const std::string dir = (fs::path(context.runs_dir) / name / strf("r%02d", repeat)).string();
    const TrialResult result = run_trial_isolated(paired_spec(c, model, backends, context), context.tune_executable, dir);
    record_trial(out, running, result, dir);
    if (context.progress) *context.progress << progress_line(out, running, result, repeat, c.repeats);
  }
  return out;
}

}  // namespace

double paired_speedup(const std::vector<double>& native_blocks, const std::vector<double>& compiled_blocks) {
  const std::vector<double> ratios = round_ratios(native_blocks, compiled_blocks);
  return ratios.empty() ? 0.0 : median(ratios);
}

const BackendSamples* ModelSamples::find(const std::string& backend) const {
  for (const auto& b : backends)
    if (b.backend == backend) return &b;
  return nullptr;
}

const ModelSamples* RegressionRun::find(const std::string& model) const {
  for (const auto& m : models)
    if (m.model == model) return &m;
  return nullptr;
}

bool RegressionRun::all_ok() const {
  for (const auto& m : models)
    for (const auto& b : m.backends)
      if (!b.ok()) return false;
  return true;
}

RegressionRun measure_regression_set(const RegressionConfig& config, const RegressionRunContext& context) {
  RegressionRun run;
  run.created = utc_now();
  run.tune_version = TUNE_VERSION;
  run.libtorch_version = context.libtorch_version;
  run.instance_fingerprint = context.instance.fingerprint();
  run.settings = config.measurement_settings();
  run.repeats = config.repeats;
  for (const auto& name : config.models) run.models.push_back(measure_model(config, name, context));
  return run;
}

RegressionRun read_regression_run(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("reference '" + path + "' cannot be read (record one with tune regress --record)");
  RegressionRun run;
  try {
    run = nlohmann::json::parse(in).get<RegressionRun>();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("reference '" + path + "' is not a tune regress reference: " + e.what());
  }
  if (run.schema_version != kRegressionRunSchema && run.schema_version != 2)
    throw std::invalid_argument("reference '" + path + "' has schema version " + std::to_string(run.schema_version) +
                                ", expected 2 or " + std::to_string(kRegressionRunSchema) + " (record it again)");
  run.schema_version = kRegressionRunSchema;  // version 2 lacks only the sessions: sessions_of() stands in
  return run;
}

void write_regression_run(const std::string& path, const RegressionRun& run) {
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream(path) << nlohmann::json(run).dump(2) << "\n";
}

}  // namespace tune
