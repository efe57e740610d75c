// Google Benchmark: one training step (forward, backward, AdamW) per backend on bert-tiny and
// bert-base-cased at seq 128, on this CPU. Run: build/tests/bench/tune_bench --benchmark_format=json
#include <benchmark/benchmark.h>

#include <torch/torch.h>

#include "compile/train_step.h"
#include "data/mlm_batcher.h"
#include "models/model_factory.h"

namespace {

// Args: batch size. The model and backend are the benchmark's template-free captures.
void train_step(benchmark::State& state, const std::string& model_name, const std::string& backend) {
  const tune::ModelConfig config = tune::resolve_model(model_name);
  const int batch = static_cast<int>(state.range(0));
  tune::MlmBatcher batcher({}, config, 128, batch, 1);
  const tune::Batch b = batcher.next();
  auto step = tune::make_train_step(backend, tune::build_model(config, 0), tune::StepOptions{});
  step->prepare(b);
  for (int i = 0; i < 3; ++i) step->step(b).item<double>();  // warm-up, and the jit's optimizing runs
  for (auto _ : state) benchmark::DoNotOptimize(step->step(b).item<double>());
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["samples_per_s"] = benchmark::Counter(static_cast<double>(state.iterations() * batch),
                                                       benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK_CAPTURE(train_step, tiny_eager, std::string("bert-tiny"), std::string("eager"))
    ->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(train_step, tiny_jit, std::string("bert-tiny"), std::string("jit"))
    ->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(train_step, base_eager, std::string("bert-base-cased"), std::string("eager"))
    ->Arg(4)->Iterations(5)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(train_step, base_jit, std::string("bert-base-cased"), std::string("jit"))
    ->Arg(4)->Iterations(5)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
