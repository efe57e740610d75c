// Google Benchmark: one training step (forward, backward, optimizer) per backend, precision and step
// option on bert-tiny and bert-base-cased at seq 128. Run: build/tests/bench/tune_bench --benchmark_format=json
#include <benchmark/benchmark.h>

#include <torch/torch.h>

#include "data/mlm_batcher.h"
#include "models/model_factory.h"
#include "trial/backend_registry.h"
#include "trial/step_factory.h"

namespace {

struct Variant {
  std::string model, backend, precision = "fp32", attention = "math", optimizer = "adamw";
  int batch = 8;
  int iterations = 0;  // 0: let the library decide (tiny); fixed for the base model's multi-second steps
};

// On a GPU machine the steps run there (and cuda-graph joins); else on this CPU.
std::string bench_device() { return torch::cuda::is_available() ? "cuda" : "cpu"; }

void train_step(benchmark::State& state, const Variant& v) {
  const tune::ModelConfig config = tune::resolve_model(v.model);
  const torch::Device device(bench_device());
  tune::MlmBatcher batcher({}, config, 128, v.batch, 1);
  const tune::Batch b = batcher.next().to(device);
  auto model = tune::build_model(config, 0, v.attention);
  model.module->to(device);
  auto step = tune::make_train_step(v.backend, model, tune::StepOptions{1e-4, v.precision, v.optimizer});
  step->prepare(b);
  for (int i = 0; i < 3; ++i) step->step(b).item<double>();  // warm-up, and the jit's optimizing runs
  for (auto _ : state) benchmark::DoNotOptimize(step->step(b).item<double>());
  state.SetItemsProcessed(state.iterations() * v.batch);
  state.counters["samples_per_s"] = benchmark::Counter(static_cast<double>(state.iterations() * v.batch),
                                                       benchmark::Counter::kIsRate);
}

// The achievable matmul rate (a square GEMM), beside the estimated peak that MFU divides by: a
// large gap means the estimate's clock or unit count is off for this machine.
void matmul_peak(benchmark::State& state, torch::ScalarType dtype) {
  const int64_t n = state.range(0);
  const auto options = torch::TensorOptions().dtype(dtype).device(bench_device());
  const auto a = torch::randn({n, n}, options), b = torch::randn({n, n}, options);
  for (int i = 0; i < 2; ++i) torch::mm(a, b).sum().item<double>();
  for (auto _ : state) benchmark::DoNotOptimize(torch::mm(a, b).sum().item<double>());
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * n * n * n * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

std::vector<Variant> variants() {
  std::vector<Variant> out;
  std::vector<std::string> backends;  // the in-process ones this device runs (cuda-graph joins on a GPU)
  for (const auto& b : tune::registered_backends())
    if (b.route == tune::BackendRoute::in_process && b.runs_on(bench_device())) backends.push_back(b.name);
  for (const auto& backend : backends)
    for (const char* precision : {"fp32", "bf16"}) {
      for (int batch : {8, 32}) out.push_back({"bert-tiny", backend, precision, "math", "adamw", batch});
      out.push_back({"bert-base-cased", backend, precision, "math", "adamw", 4, 5});
    }
  out.push_back({"bert-tiny", tune::kNativeBackend, "fp32", "sdpa", "adamw", 32});
  out.push_back({"bert-tiny", tune::kNativeBackend, "fp32", "math", "fused", 32});
  out.push_back({"bert-base-cased", tune::kNativeBackend, "fp32", "sdpa", "adamw", 4, 5});
  out.push_back({"bert-base-cased", tune::kNativeBackend, "fp32", "math", "fused", 4, 5});
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& v : variants()) {
    const std::string name = v.model + "/" + v.backend + "/" + v.precision + "/" + v.attention + "/" + v.optimizer +
                             "/batch:" + std::to_string(v.batch);
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [v](benchmark::State& s) { train_step(s, v); });
    b->Unit(benchmark::kMillisecond);
    if (v.iterations > 0) b->Iterations(v.iterations);
  }
  benchmark::RegisterBenchmark("matmul/fp32", matmul_peak, torch::kFloat)->Arg(2048)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("matmul/bf16", matmul_peak, torch::kBFloat16)->Arg(2048)->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
