// Measures the regression set with real trial processes, interleaved per repeat and alternating the order
// (native first on even repeats, last on odd ones) so drift and warm caches favour no backend;
// reads and writes the run as the JSON reference.
#include "report/regression_run.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "trial/trial_process.h"
#include "util/table_format.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A trial that runs exactly warmup + steps steps: the stopping rule never ends timing early, so the
// loss after the last step is comparable between runs.
TrialSpec spec_for(const RegressionConfig& c, const ModelConfig& model, const std::string& backend,
                   const RegressionRunContext& context) {
  TrialSpec spec;
  spec.model = model;
  spec.backend = backend;
  spec.device = context.instance.device;
  spec.precision = c.precision;
  spec.seq_len = c.seq_len;
  spec.batch_size = c.batch_size;
  spec.learning_rate = c.learning_rate;
  spec.seed = c.seed;
  spec.warmup_steps = c.warmup_steps;
  spec.min_measure_steps = spec.max_measure_steps = c.steps;
  spec.measure_seconds = c.trial_timeout_seconds;
  spec.threads = c.threads > 0 ? c.threads : context.instance.threads;
  spec.corpus_path = c.corpus;
  spec.step_clock = c.step_clock;
  spec.timeout_seconds = c.trial_timeout_seconds;
  if (auto it = context.inject_slowdown.find(backend); it != context.inject_slowdown.end())
    spec.inject_slowdown = it->second;
  return spec;
}

void record_trial(BackendSamples& samples, const TrialResult& result, const std::string& trial_dir) {
  if (!result.ok() || result.losses.empty()) {
    samples.status = result.ok() ? "crashed" : to_string(result.status);
    samples.error = result.error_stage + ": " + result.error_message + " (trial folder " + trial_dir + ")";
    return;
  }
  samples.step_times.push_back(result.step_time_median);
  samples.losses.push_back(result.losses.back());
}

// Native first on even repeats, last on odd ones.
std::vector<size_t> round_order(size_t backends, int repeat) {
  std::vector<size_t> order(backends);
  for (size_t i = 0; i < backends; ++i) order[i] = i;
  if (repeat % 2) std::reverse(order.begin(), order.end());
  return order;
}

ModelSamples measure_model(const RegressionConfig& c, const std::string& name, const RegressionRunContext& context) {
  const ModelConfig model = resolve_model(name);
  ModelSamples out{name, {}};
  for (const auto& backend : c.backends()) out.backends.push_back({backend, {}, {}, "ok", "", 0});
  for (int repeat = 0; repeat < c.repeats; ++repeat) {
    for (size_t b : round_order(out.backends.size(), repeat)) {
      BackendSamples& samples = out.backends[b];
      if (samples.status != "ok") continue;
      const TrialSpec spec = spec_for(c, model, samples.backend, context);
      samples.inject_slowdown = spec.inject_slowdown;
      const std::string dir = (fs::path(context.runs_dir) / name / strf("r%02d-%s", repeat, samples.backend.c_str())).string();
      const TrialResult result = run_trial_isolated(spec, context.tune_executable, dir);
      record_trial(samples, result, dir);
      if (context.progress)
        *context.progress << strf("tune regress: %s %s repeat %d/%d: %s, step %.3f ms, loss %.6f\n", name.c_str(),
                                  samples.backend.c_str(), repeat + 1, c.repeats, to_string(result.status).c_str(),
                                  1e3 * result.step_time_median, result.losses.empty() ? 0.0 : result.losses.back());
    }
  }
  return out;
}

}  // namespace

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
      if (b.status != "ok") return false;
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
  if (run.schema_version != kRegressionRunSchema)
    throw std::invalid_argument("reference '" + path + "' has schema version " + std::to_string(run.schema_version) +
                                ", expected " + std::to_string(kRegressionRunSchema) + " (record it again)");
  return run;
}

void write_regression_run(const std::string& path, const RegressionRun& run) {
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream(path) << nlohmann::json(run).dump(2) << "\n";
}

}  // namespace tune
