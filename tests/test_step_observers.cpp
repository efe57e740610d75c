// The libtorch observers on bert-tiny: the debugger's statistics equal a direct computation of each layer's output
// and each gradient; under the jit backend the traced graph drops the activation tap (said, not hidden); the
// profilers write traces; an observer trial pairs the bare step with each tool, trains the same curve with and
// without it, and a tool that throws ends its own part alone. Values, not timings: the overheads' figures are in
// the note and docs/observers.md.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "compile/eager_step.h"
#include "compile/jit_step.h"
#include "data/mlm_batcher.h"
#include "cli_run.h"
#include "family_checks.h"
#include "models/activation_tap.h"
#include "test_helpers.h"
#include "trial/observer_overhead.h"
#include "trial/observer_registry.h"
#include "trial/python_trial.h"
#include "trial/step_observers.h"
#include "trial/trial_runner.h"
#include "util/paths.h"

using namespace tune;
namespace fs = std::filesystem;

namespace {

Batch tiny_batch(const ModelConfig& c) { return MlmBatcher({}, c, 16, 4, 1).next(); }

std::vector<nlohmann::json> read_rows(const fs::path& path) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

// One observed step, as a step loop runs it: block hooks around, step hooks inside.
torch::Tensor observed_step(StepObserver& o, TrainStep& step, const Batch& b, int index) {
  o.begin_block();
  o.before_step(index);
  const torch::Tensor loss = step.step(b);
  o.after_step(index, loss);
  o.end_block();
  return loss;
}

void expect_stats_of(const nlohmann::json& row, const torch::Tensor& t) {
  const torch::Tensor f = t.detach().to(torch::kFloat);
  const std::string name = row.at("name");
  EXPECT_NEAR(row.at("norm").get<double>(), f.norm().item<double>(), 1e-4 * (1 + f.norm().item<double>())) << name;
  EXPECT_NEAR(row.at("min").get<double>(), f.min().item<double>(), 1e-6) << name;
  EXPECT_NEAR(row.at("max").get<double>(), f.max().item<double>(), 1e-6) << name;
  EXPECT_NEAR(row.at("mean").get<double>(), f.mean().item<double>(), 1e-6) << name;
  EXPECT_EQ(row.at("nan").get<int64_t>(), 0) << name;
  EXPECT_EQ(row.at("inf").get<int64_t>(), 0) << name;
}

TrialSpec observer_trial_spec() {
  TrialSpec s;
  s.model = resolve_model("bert-tiny");
  s.purpose = TrialPurpose::paired;
  s.seq_len = 32;
  s.batch_size = 4;
  s.learning_rate = 1e-3;
  s.seed = 3;
  s.threads = 1;
  s.data.corpus_path = "synthetic";
  s.measure.warmup_steps = 1;
  s.paired.rounds = 3;
  s.paired.block_steps = 5;
  return s;
}

}  // namespace

TEST(StepObservers, TensorStatsOfEveryLayerOutputAndGradientAreTheDirectComputations) {
  const ModelConfig c = tune::testing::without_dropout("bert-tiny");
  const Batch b = tiny_batch(c);
  TrainableModel model = build_model(c, 7);
  std::map<std::string, torch::Tensor> outputs;  // what each layer outputs, taken before the step trains
  {
    ActivationTapGuard capture([&](const std::string& layer, const torch::Tensor& out) { outputs[layer] = out.detach().clone(); });
    torch::NoGradGuard no_grad;
    model.loss(b);
  }
  const fs::path dir = tune::testing::temp_dir("tensor-stats");
  EagerStep step(model, StepOptions{1e-3});
  step.prepare(b);
  auto observer = make_step_observer("tensor-stats:2", model, {dir.string()});
  observed_step(*observer, step, b, 0);
  int activations = 0, gradients = 0;
  const auto parameters = model.module->named_parameters();
  for (const auto& row : read_rows(dir / "tensor_stats.jsonl")) {
    EXPECT_EQ(row.at("step"), 1);
    if (row.at("kind") == "activation") {
      ASSERT_TRUE(outputs.count(row.at("name"))) << row.dump();
      expect_stats_of(row, outputs.at(row.at("name")));
      ++activations;
    } else {
      expect_stats_of(row, parameters[row.at("name").get<std::string>()].grad());  // this step's: zeroed before it
      ++gradients;
    }
  }
  EXPECT_EQ(activations, c.num_hidden_layers);
  EXPECT_EQ(gradients, static_cast<int>(parameters.size()));
  observed_step(*observer, step, b, 1);  // every 2 steps: step 2 is not collected
  observed_step(*observer, step, b, 2);
  const auto rows = read_rows(dir / "tensor_stats.jsonl");
  EXPECT_EQ(rows.size(), 2u * (c.num_hidden_layers + parameters.size()));
  EXPECT_EQ(rows.back().at("step"), 3);
  EXPECT_NE(observer->finish().find("every 2 steps: 2 steps collected"), std::string::npos);
}

TEST(StepObservers, TensorStatsCountNaNAndInf) {
  const double inf = std::numeric_limits<double>::infinity();
  const TensorStats s = tensor_stats(torch::tensor({1.0, std::nan(""), inf, -inf, 3.0}));
  EXPECT_EQ(s.nan_count, 1);
  EXPECT_EQ(s.inf_count, 2);
  const TensorStats fine = tensor_stats(torch::tensor({3.0, -4.0}).to(torch::kBFloat16));
  EXPECT_DOUBLE_EQ(fine.norm, 5.0);
  EXPECT_DOUBLE_EQ(fine.min, -4.0);
  EXPECT_DOUBLE_EQ(fine.mean, -0.5);
}

TEST(StepObservers, UnderJitTheTracedGraphDropsTheActivationTapAndSaysSo) {
  const ModelConfig c = tune::testing::without_dropout("bert-tiny");
  const Batch b = tiny_batch(c);
  TrainableModel model = build_model(c, 7);
  const fs::path dir = tune::testing::temp_dir("tensor-stats-jit");
  auto observer = make_step_observer("tensor-stats", model, {dir.string()});
  JitStep step(model, StepOptions{1e-3});
  observer->begin_block();
  observer->before_step(0);
  step.prepare(b);  // traced with the tap installed: it sees tracer values once
  observer->end_block();
  for (int i = 0; i < 2; ++i) observed_step(*observer, step, b, i);
  int activations = 0, gradients = 0;
  for (const auto& row : read_rows(dir / "tensor_stats.jsonl")) (row.at("kind") == "activation" ? activations : gradients)++;
  EXPECT_EQ(activations, 0);
  EXPECT_EQ(gradients, 2 * static_cast<int>(model.module->parameters().size()));  // graph inputs: hooks still fire
  EXPECT_NE(observer->finish().find("0 layer outputs"), std::string::npos);
  EXPECT_NE(observer->caveat().find("it ran only while the step was traced"), std::string::npos);
}

TEST(StepObservers, ProfilersWriteTracesAndTheLossLogItsLines) {
  const ModelConfig c = tune::testing::without_dropout("bert-tiny");
  const Batch b = tiny_batch(c);
  TrainableModel model = build_model(c, 7);
  EagerStep step(model, StepOptions{1e-3});
  step.prepare(b);
  for (const std::string label : {"profiler", "profiler-detail", "profiler-schedule", "anomaly", "loss-log"}) {
    const fs::path dir = tune::testing::temp_dir("observer-" + label);
    auto observer = make_step_observer(label, model, {dir.string()});
    observer->begin_block();
    for (int i = 0; i < 5; ++i) {  // one block of one schedule cycle
      observer->before_step(i);
      observer->after_step(i, step.step(b));
    }
    observer->end_block();
    const std::string summary = observer->finish();
    SCOPED_TRACE(label + ": " + summary);
    if (label == "profiler" || label == "profiler-detail") {
      EXPECT_GT(fs::file_size(dir / "trace.json"), 1000u);
      EXPECT_NE(summary.find("profiled 5 steps"), std::string::npos);
    }
    if (label == "profiler-schedule") EXPECT_TRUE(fs::exists(dir / "trace-0.json"));
    if (label == "loss-log") EXPECT_NE(tune::testing::read_file(dir / "loss.log").find("step 5 loss "), std::string::npos);
    if (label == "anomaly") EXPECT_FALSE(torch::autograd::AnomalyMode::is_enabled());  // off after its block
  }
}

TEST(StepObservers, AnObserverTrialTrainsTheSameCurveWithAndWithoutTheTool) {
  TrialSpec s = observer_trial_spec();
  s.paired.observers = {"tensor-stats"};
  const fs::path dir = tune::testing::temp_dir("observer-trial");
  const TrialResult r = run_trial_in_process(s, dir.string());
  ASSERT_TRUE(r.ok()) << r.error_message;
  ASSERT_EQ(r.paired.size(), 2u);
  const PairedPart &bare = r.paired[0], &observed = r.paired[1];
  EXPECT_EQ(bare.observer, "");
  EXPECT_EQ(observed.observer, "tensor-stats");
  ASSERT_TRUE(observed.ok()) << observed.error_message;
  EXPECT_EQ(observed.block_times.size(), 3u);
  ASSERT_EQ(observed.losses.size(), bare.losses.size());
  for (size_t i = 0; i < bare.losses.size(); ++i) EXPECT_DOUBLE_EQ(observed.losses[i], bare.losses[i]) << "step " << i;
  EXPECT_NE(observed.observer_summary.find("16 steps collected"), std::string::npos) << observed.observer_summary;
  EXPECT_TRUE(fs::exists(dir / "observers" / "tensor-stats" / "tensor_stats.jsonl"));
  EXPECT_EQ(observed.observer_caveat, "");  // eager: every layer output collected
  const auto overheads = observer_overheads(r);
  ASSERT_EQ(overheads.size(), 1u);
  EXPECT_EQ(overheads[0].step_time.rounds, 3);
  EXPECT_GT(overheads[0].step_time.ratio, 0);
}

TEST(StepObservers, AToolThatThrowsEndsItsOwnPartAndTheBareStepGoesOn) {
  TrialSpec s = observer_trial_spec();
  s.paired.observers = {"loss-log"};
  s.test.observer_fails_at_step = 4;
  const TrialResult r = run_trial_in_process(s, tune::testing::temp_dir("observer-throws").string());
  ASSERT_TRUE(r.ok()) << r.error_message;  // the trial is the bare step's
  ASSERT_EQ(r.paired.size(), 2u);
  EXPECT_EQ(r.paired[0].block_times.size(), 3u);
  EXPECT_EQ(r.paired[1].status, TrialStatus::crashed);
  EXPECT_NE(r.paired[1].error_message.find("observer failed at step 4"), std::string::npos) << r.paired[1].error_message;
  EXPECT_NE(describe_observer_cost(observer_overheads(r).at(0)).find("crashed"), std::string::npos);
}

TEST(StepObservers, ALoneTrialWithAToolRecordsWhatItDid) {
  TrialSpec s = observer_trial_spec();
  s.purpose = TrialPurpose::throughput;
  s.measure.min_measure_steps = s.measure.max_measure_steps = 3;
  s.step.observer = "loss-log";
  const fs::path dir = tune::testing::temp_dir("observer-lone");
  const TrialResult r = run_trial_in_process(s, dir.string());
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_NE(r.observer_summary.find("logged 4 losses"), std::string::npos) << r.observer_summary;
  s.test.observer_fails_at_step = 2;
  const TrialResult failed = run_trial_in_process(s, dir.string());
  EXPECT_EQ(failed.status, TrialStatus::crashed);
  EXPECT_NE(failed.error_message.find("observer failed at step 2"), std::string::npos);
}

// The Python worker's debugger statistics (step_observers.py), checked by tests/observers/check_tensor_stats.py
// against the tensors themselves, with the worker's python.
TEST(StepObservers, ThePythonWorkersTensorStatsAreTheDirectComputations) {
  const fs::path dir = tune::testing::temp_dir("python-tensor-stats");
  const std::string command = python_executable() + " " + tune_home() + "/tests/observers/check_tensor_stats.py " +
                              tune_home() + "/src/trial " + dir.string() + " 2>&1";
  const auto [exit_code, output] = tune::testing::run_command(command);
  EXPECT_EQ(exit_code, 0) << output;
  EXPECT_NE(output.find("every 2 steps: 1 steps collected, 2 layer outputs and 4 gradients"), std::string::npos) << output;
}

// The jit step of an observer trial: its graph is traced before the tool's first block, so the tap never runs; the
// trial says the tool collected gradients only.
TEST(StepObservers, AJitObserverTrialSaysTheDebuggerCollectedGradientsOnly) {
  TrialSpec s = observer_trial_spec();
  s.step.backend = "jit";
  s.paired.observers = {"tensor-stats"};
  const TrialResult r = run_trial_in_process(s, tune::testing::temp_dir("observer-jit").string());
  ASSERT_TRUE(r.ok()) << r.error_message;
  ASSERT_EQ(r.paired.size(), 2u);
  EXPECT_NE(r.paired[1].observer_summary.find(", 0 layer outputs and "), std::string::npos) << r.paired[1].observer_summary;
  EXPECT_NE(describe_observer_cost(observer_overheads(r).at(0)).find("; gradients only: no layer output"),
            std::string::npos);
}

// Every registry entry has its libtorch class (a registered name without one aborts in make_step_observer).
TEST(StepObservers, EveryRegisteredObserverHasALibtorchClass) {
  const TrainableModel model = build_model(resolve_model("bert-tiny"), 7);
  for (const auto& info : registered_observers()) {
    auto observer = make_step_observer(info.name, model, {tune::testing::temp_dir("registered").string()});
    EXPECT_NE(observer, nullptr) << info.name;
  }
}
