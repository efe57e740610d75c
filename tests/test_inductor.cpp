// The Python-worker backends end to end: inductor (torch.compile of HF's module) and the hf-eager reference.
// A bert-tiny throughput trial, losses equal to libtorch eager's on the same weights and batches, failures
// with their stage, a search over eager and inductor, and the backend contract of every Python-worker backend
// (tests/backend_contract.h). Label "inductor": each compile takes 30 s to minutes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include "backend_contract.h"
#include "cli_run.h"
#include "family_checks.h"
#include "test_helpers.h"
#include "store/database.h"
#include "trial/backend_registry.h"
#include "trial/observer_overhead.h"
#include "trial/python_trial.h"
#include "trial/trial_process.h"
#include "util/join.h"
#include "util/paths.h"

using namespace tune;
using tune::testing::temp_dir;
using tune::testing::tiny_spec;
using tune::testing::write_file;
namespace fs = std::filesystem;

namespace {

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// HF's module for the spec's config, seeded, saved with save_pretrained: built by the worker's own build_model,
// so both backends load the very same weights (the C++ side through models/hf_weights.h).
std::string export_hf_weights(const TrialSpec& spec, const fs::path& dir) {
  const std::string spec_path = write_file(dir / "export-spec.json", nlohmann::json(spec).dump());
  const std::string script = "import json, sys, torch, transformers; sys.path.insert(0, sys.argv[1]); "
                             "import python_worker as w; spec = json.load(open(sys.argv[2])); "
                             "w.build_model(torch, transformers, spec).save_pretrained(sys.argv[3])";
  const std::string command = python_executable() + " -c '" + script + "' " + tune_home() + "/src/trial " +
                              spec_path + " " + (dir / "weights").string() + " > " + (dir / "export.log").string() + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << file_text(dir / "export.log");
  return (dir / "weights").string();
}

// A learning-rate trial of `steps` steps on exported weights, without dropout: libtorch eager in process, the
// Python backend isolated as the search runs it. Their loss curves must agree within `tolerance`.
// `result`, when given, receives the Python backend's trial.
void expect_losses_agree(const std::string& model, const std::string& backend, double tolerance, int steps,
                         const std::string& schedule = "constant", int warmup_steps = 0, TrialResult* result = nullptr) {
  const fs::path dir = temp_dir("agree");
  TrialSpec s = tiny_spec(model, "eager");
  s.model = tune::testing::without_dropout(model);
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = steps;
  s.lr_schedule = schedule;
  s.lr_warmup_steps = warmup_steps;
  s.weights_dir = export_hf_weights(s, dir);
  const TrialResult eager = run_trial_in_process(s);
  ASSERT_EQ(eager.status, TrialStatus::ok) << eager.error_message;
  apply_backend_label(s.step, backend);
  const TrialResult python = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "trial").string());
  if (result) *result = python;
  ASSERT_EQ(python.status, TrialStatus::ok) << python.error_stage << ": " << python.error_message << "\n"
                                            << file_text(dir / "trial" / "log.txt");
  ASSERT_EQ(python.losses.size(), eager.losses.size());
  for (size_t i = 0; i < eager.losses.size(); ++i)
    EXPECT_NEAR(python.losses[i], eager.losses[i], tolerance) << model << " " << backend << ", step " << i + 1;
  const auto [low, high] = std::minmax_element(eager.losses.begin(), eager.losses.end());
  EXPECT_GT(*high - *low, tolerance) << model << ": the steps must move the loss more than the tolerance, or "
                                                 "equal curves prove little";
  EXPECT_EQ(python.parameter_count, eager.parameter_count);
}

}  // namespace

TEST(InductorTrial, BertTinyThroughputTrialIsOkWithSaneFields) {
  const fs::path dir = temp_dir("inductor");
  const TrialSpec s = tiny_spec("bert-tiny", "inductor");
  const TrialResult r = run_trial_isolated(s, TUNE_EXECUTABLE, dir.string());
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_stage << ": " << r.error_message << "\n" << file_text(dir / "log.txt");
  EXPECT_GT(r.step_time_median, 0);
  EXPECT_LE(r.step_time_ci_low, r.step_time_median);
  EXPECT_GE(r.step_time_ci_high, r.step_time_median);
  EXPECT_NEAR(r.samples_per_second, s.batch_size / r.step_time_median, 1e-9 * r.samples_per_second);
  EXPECT_EQ(r.losses.size(), static_cast<size_t>(s.measure.warmup_steps) + r.step_times.size());
  EXPECT_GE(r.step_times.size(), static_cast<size_t>(s.measure.min_measure_steps));
  EXPECT_FALSE(r.steady_state_stop.empty());
  EXPECT_EQ(r.parameter_count, s.model.expected_parameters);
  EXPECT_GT(r.peak_memory_bytes, 0);
  EXPECT_GT(r.flops_per_step, 0);
  // A cold compile costs seconds, not steps: it dominates the warm-up and the overhead.
  EXPECT_GT(r.compile_seconds, 10 * r.step_time_median) << r.compile_info;
  EXPECT_GT(r.compile_overhead_seconds, 0);
  for (const char* part : {"dynamo_trace", "aot_inductor_codegen", "kernel_compile"}) {
    ASSERT_TRUE(r.compile_parts.count(part)) << part;
    EXPECT_GT(r.compile_parts.at(part), 0) << part << ": " << r.compile_info;
  }
  EXPECT_NE(r.compile_info.find("cold"), std::string::npos) << r.compile_info;
  EXPECT_NE(r.compile_info.find("recompiles after the first step 0"), std::string::npos) << r.compile_info;
  EXPECT_FALSE(fs::exists(dir / "inductor-cache")) << "a cold per-trial cache is removed after the trial";
  EXPECT_NE(file_text(dir / "command.sh").find("'trial' '--spec' 'spec.json'"), std::string::npos)
      << "every backend's trial reruns as `tune trial`, which starts the worker";
}

// Two trials at one shape and two learning rates, sharing an Inductor cache folder (TUNE_INDUCTOR_CACHE_DIR): the
// first compiles cold, the second finds every graph there (warm), since the rate is a tensor the step reads and not
// a constant of the graph, and says whose cache it used. Then one cached file is damaged: the third trial finds the
// cache rebuilt (cold) and says why, not a warm compile from a file tune cannot vouch for (compile_cache.py). Their
// compile times are printed (issue 34 measures them; no timing is asserted).
TEST(InductorTrial, ATrialAtAnotherRateCompilesWarmFromASharedCacheAndADamagedOneIsRebuilt) {
  const fs::path dir = temp_dir("inductor-shared");
  const std::string cache = (dir / "cache").string();
  ASSERT_EQ(setenv("TUNE_INDUCTOR_CACHE_DIR", cache.c_str(), 1), 0);
  TrialSpec s = tiny_spec("bert-tiny", "inductor");
  s.learning_rate = 1e-3;
  const TrialResult cold = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "cold").string());
  s.learning_rate = 3e-3;
  const TrialResult warm = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "warm").string());
  std::vector<fs::path> cached;
  for (const auto& entry : fs::recursive_directory_iterator(cache))
    if (entry.is_regular_file() && entry.path().filename().string().rfind("tune-cache", 0) != 0 &&
        entry.path().filename() != ".tune-cache.lock")
      cached.push_back(entry.path());
  ASSERT_FALSE(cached.empty());
  std::ofstream(cached.front(), std::ios::app) << "damage";
  const TrialResult rebuilt = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "rebuilt").string());
  unsetenv("TUNE_INDUCTOR_CACHE_DIR");
  ASSERT_EQ(cold.status, TrialStatus::ok) << cold.error_message << "\n" << file_text(dir / "cold" / "log.txt");
  ASSERT_EQ(warm.status, TrialStatus::ok) << warm.error_message << "\n" << file_text(dir / "warm" / "log.txt");
  EXPECT_EQ(cold.compile_cache, "cold");
  EXPECT_NE(cold.compile_info.find("(cold: FX graphs 0 hits"), std::string::npos) << cold.compile_info;
  EXPECT_EQ(warm.compile_cache, "warm");
  EXPECT_NE(warm.compile_info.find("(warm: FX graphs"), std::string::npos) << warm.compile_info;
  EXPECT_NE(warm.compile_info.find("(TUNE_INDUCTOR_CACHE_DIR): made "), std::string::npos) << warm.compile_info;
  EXPECT_NE(warm.compile_info.find("recompiles after the first step 0"), std::string::npos) << warm.compile_info;
  ASSERT_EQ(rebuilt.status, TrialStatus::ok) << rebuilt.error_message;
  EXPECT_EQ(rebuilt.compile_cache, "cold") << rebuilt.compile_info;
  EXPECT_NE(rebuilt.compile_info.find("rebuilt, damaged: its file "), std::string::npos) << rebuilt.compile_info;
  EXPECT_NE(join(rebuilt.warnings, "\n").find("rebuilt: damaged"), std::string::npos) << join(rebuilt.warnings, "\n");
  EXPECT_TRUE(fs::exists(cache)) << "a shared cache outlives its trials";
  std::cout << "compile seconds: cold " << cold.compile_seconds << ", warm " << warm.compile_seconds << ", rebuilt "
            << rebuilt.compile_seconds << "\n";
}

// A compile carried to another process (torch.compiler.save_cache_artifacts): a cold trial saves its artifacts with a
// sidecar; a trial in a fresh cache that loads them finds every graph there (warm by torch's counts) and names the
// file and its maker; artifacts whose bytes changed, or made by another torch, are not loaded: that trial compiles
// cold and says why. Compile times are printed (issue 34 measures them), not asserted.
TEST(InductorTrial, ACarriedCompileLoadsIntoAFreshCacheAndAChangedOneIsNot) {
  const fs::path dir = temp_dir("inductor-carried");
  TrialSpec s = tiny_spec("bert-tiny", "inductor");
  s.save_compile_artifacts = true;
  const TrialResult cold = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "cold").string());
  ASSERT_EQ(cold.status, TrialStatus::ok) << cold.error_message << "\n" << file_text(dir / "cold" / "log.txt");
  ASSERT_TRUE(fs::exists(dir / "cold" / "compile-artifacts.bin")) << cold.compile_info;
  EXPECT_NE(cold.compile_info.find("compile artifacts saved "), std::string::npos) << cold.compile_info;
  s.save_compile_artifacts = false;
  s.compile_artifacts = (dir / "cold" / "compile-artifacts.bin").string();
  const TrialResult carried = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "carried").string());
  ASSERT_EQ(carried.status, TrialStatus::ok) << carried.error_message;
  EXPECT_EQ(carried.compile_cache, "warm") << carried.compile_info;
  EXPECT_NE(carried.compile_info.find("carried artifacts " + s.compile_artifacts + ", made "), std::string::npos)
      << carried.compile_info;
  EXPECT_NE(carried.compile_info.find("on this machine"), std::string::npos) << carried.compile_info;

  fs::copy(dir / "cold" / "compile-artifacts.json", dir / "compile-artifacts.json");
  fs::copy(dir / "cold" / "compile-artifacts.bin", dir / "compile-artifacts.bin");
  std::ofstream(dir / "compile-artifacts.bin", std::ios::app) << "damage";
  s.compile_artifacts = (dir / "compile-artifacts.bin").string();
  const TrialResult damaged = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "damaged").string());
  ASSERT_EQ(damaged.status, TrialStatus::ok) << damaged.error_message;
  EXPECT_EQ(damaged.compile_cache, "cold") << damaged.compile_info;
  EXPECT_NE(join(damaged.warnings, "\n").find("not loaded (compiled cold): damaged: its bytes changed"),
            std::string::npos) << join(damaged.warnings, "\n");

  std::string sidecar = file_text(dir / "cold" / "compile-artifacts.json");
  const size_t version = sidecar.find("\"torch\": \"");
  ASSERT_NE(version, std::string::npos) << sidecar;
  sidecar.insert(version + 10, "1.0-other ");
  write_file(dir / "compile-artifacts.json", sidecar);
  fs::copy(dir / "cold" / "compile-artifacts.bin", dir / "compile-artifacts.bin", fs::copy_options::overwrite_existing);
  const TrialResult other_torch = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "other-torch").string());
  ASSERT_EQ(other_torch.status, TrialStatus::ok) << other_torch.error_message;
  EXPECT_EQ(other_torch.compile_cache, "cold") << other_torch.compile_info;
  EXPECT_NE(join(other_torch.warnings, "\n").find("it was made with torch '1.0-other "), std::string::npos)
      << join(other_torch.warnings, "\n");
  std::cout << "compile seconds: cold " << cold.compile_seconds << ", carried " << carried.compile_seconds
            << ", damaged " << damaged.compile_seconds << "\n";
}

// A classifier's held-out score (data/held_out.h): HF's module scored by the worker (eval mode, fp32) gives the
// libtorch model's held-out loss and accuracy on the same weights, rows and steps.
TEST(HfEagerTrial, AClassifiersHeldOutScoreEqualsEagers) {
  const fs::path dir = temp_dir("held-out");
  TrialSpec s = tiny_spec("distilbert-sst2-tiny", "eager");
  s.model = tune::testing::without_dropout("distilbert-sst2-tiny");
  std::string csv = "text,label\n";
  for (int i = 0; i < 400; ++i) csv += "row " + std::to_string(i) + (i % 3 == 0 ? " good,yes\n" : " bad,no\n");
  s.data.dataset_path = write_file(dir / "d.csv", csv);
  s.data.held_out_share = 0.1;
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = 8;
  s.learning_rate = 3e-3;
  s.weights_dir = export_hf_weights(s, dir);
  const TrialResult eager = run_trial_in_process(s);
  ASSERT_EQ(eager.status, TrialStatus::ok) << eager.error_message;
  s.step.backend = "hf-eager";
  const TrialResult python = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "trial").string());
  ASSERT_EQ(python.status, TrialStatus::ok) << python.error_stage << ": " << python.error_message << "\n"
                                            << file_text(dir / "trial" / "log.txt");
  EXPECT_EQ(eager.held_out_rows, 40);
  EXPECT_EQ(python.held_out_rows, 40);
  EXPECT_NEAR(python.held_out_loss, eager.held_out_loss, 1e-3);
  EXPECT_DOUBLE_EQ(python.held_out_accuracy, eager.held_out_accuracy);
  EXPECT_DOUBLE_EQ(python.score_loss, python.held_out_loss);
  EXPECT_DOUBLE_EQ(python.label_prior_loss, eager.label_prior_loss);
  EXPECT_GT(std::abs(eager.held_out_loss - eager.losses.front()), 1e-3) << "trained: the score is not the start's";
}

TEST(InductorTrial, LossesEqualEagerOnSameWeightsAndBatchesBertTiny) {
  expect_losses_agree("bert-tiny", "inductor", 2e-3, 6);
}

TEST(InductorTrial, LossesEqualEagerOnSameWeightsAndBatchesGpt2Tiny) {
  expect_losses_agree("gpt2-tiny", "inductor", 2e-3, 6);
}

// inductor:regional compiles each transformer block on its own, once for all the layers of its class, the rest of
// the module eager: it trains as eager does, and says what it compiled.
TEST(InductorTrial, RegionalModeCompilesEachBlockOnceAndTrainsAsEagerDoes) {
  TrialResult regional;
  expect_losses_agree("bert-tiny", "inductor:regional", 2e-3, 6, "constant", 0, &regional);
  EXPECT_NE(regional.compile_info.find("of each repeated block of BertForMaskedLM (bert.encoder.layer: 2 x BertLayer; "
                                       "the rest eager)"),
            std::string::npos)
      << regional.compile_info;
  EXPECT_NE(regional.compile_info.find("recompiles after the first step 0"), std::string::npos) << regional.compile_info;
}

// The scheduled rate (warm-up, cosine decay) reaches the Python worker's optimizer step by step, compiled or not.
TEST(HfEagerTrial, ScheduledRateTrainsAsEagerDoes) { expect_losses_agree("bert-tiny", "hf-eager", 1e-4, 6, "cosine", 2); }

TEST(InductorTrial, ScheduledRateTrainsAsEagerDoes) { expect_losses_agree("bert-tiny", "inductor", 2e-3, 6, "cosine", 2); }

// No compile: HF's module in Python must train the same objective on the same batches as each C++ family.
TEST(HfEagerTrial, LossesEqualEagerForEveryTinyFamily) {
  for (const char* model : {"bert-tiny", "roberta-tiny", "distilbert-tiny", "distilbert-sst2-tiny", "gpt2-tiny", "t5-tiny"})
    expect_losses_agree(model, "hf-eager", 1e-4, 4);
}

TEST(InductorTrial, UnknownCompileModeIsCompileErrorWithItsStage) {
  TrialSpec s = tiny_spec("bert-tiny", "inductor");
  s.step.compile_mode = "fastest-please";
  const TrialResult r = run_trial_isolated(s, TUNE_EXECUTABLE, temp_dir("badmode").string());
  EXPECT_EQ(r.status, TrialStatus::compile_error) << r.error_message;
  EXPECT_EQ(r.error_stage, "compile");
  EXPECT_NE(r.error_message.find("fastest-please"), std::string::npos) << r.error_message;
}

// A python without torch: the worker's import fails, and says which python and what to do.
TEST(InductorTrial, MissingTorchIsCompileErrorAtImport) {
  const fs::path dir = temp_dir("notorch");
  write_file(dir / "fake" / "torch" / "__init__.py", "raise ImportError('no torch in this environment')\n");
  const char* old = std::getenv("PYTHONPATH");
  const std::string saved = old ? old : "";
  setenv("PYTHONPATH", (dir / "fake").c_str(), 1);
  const TrialResult r = run_trial_isolated(tiny_spec("bert-tiny", "inductor"), TUNE_EXECUTABLE, (dir / "t").string());
  if (old) setenv("PYTHONPATH", saved.c_str(), 1);
  else unsetenv("PYTHONPATH");
  EXPECT_EQ(r.status, TrialStatus::compile_error) << r.error_message;
  EXPECT_EQ(r.error_stage, "import");
  EXPECT_NE(r.error_message.find("no torch in this environment"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("TUNE_PYTHON"), std::string::npos) << r.error_message;
}

TEST(InductorSearch, EagerAndInductorEndToEnd) {
  const fs::path dir = temp_dir("isearch");
  const std::string settings = write_file(dir / "search.yaml",
      "budget: 30m\nmax_batch_size: 1\nlearning_rates: [1.0e-3]\nwarmup_steps: 2\nmin_measure_steps: 3\n"
      "max_measure_steps: 6\nmeasure_time: 5s\nlr_train_steps: 4\ntrial_timeout: 20m\n"
      // One learning-rate trial per backend (an Inductor trial compiles for about a minute cold): no rate past
      // the list's one.
      "learning_rate_bounds: [1.0e-3, 1.0e-3]\n");
  const auto [exit_code, out] = tune::testing::tune_cli("--model bert-tiny --backends eager,inductor --precisions fp32 --seq-len 32 --settings " +
                                                        settings + " --db " + (dir / "t.db").string());
  ASSERT_EQ(exit_code, 0) << out;
  EXPECT_NE(out.find("compiled training step (backend=inductor)"), std::string::npos) << out;
  EXPECT_NE(out.find("(inductor)"), std::string::npos) << "the table's compiled column: " << out;
  const std::regex done(R"(- inductor fp32: batch ramp ended .*; 2 trials run)");
  EXPECT_TRUE(std::regex_search(out, done)) << out;
  // Cold once at the shape, warm after: the learning-rate trial at batch 1 finds the ramp trial's graphs.
  std::vector<std::string> compiles;
  const Database db((dir / "t.db").string());
  for (const auto& [id, key] : db.studies())
    if (key.backend == "inductor")
      for (const auto& t : db.trials(id)) compiles.push_back(t.result.compile_info);
  ASSERT_EQ(compiles.size(), 2u);
  EXPECT_NE(compiles[0].find("(cold: FX graphs 0 hits"), std::string::npos) << compiles[0];
  EXPECT_NE(compiles[1].find("(warm: FX graphs"), std::string::npos) << compiles[1];
  EXPECT_NE(compiles[1].find("the study's cache for this shape"), std::string::npos) << compiles[1];
}

// Every registered Python-worker backend's tiny trial, on each device of this machine it runs on.
class BackendContract : public ::testing::TestWithParam<std::string> {};

TEST_P(BackendContract, TinyTrialEndsOkOnEachDeviceItRunsOn) { tune::testing::expect_backend_contract(GetParam()); }

INSTANTIATE_TEST_SUITE_P(PythonWorker, BackendContract,
                         ::testing::ValuesIn(backend_names(BackendRoute::python_worker)),
                         tune::testing::case_name);

// An observer trial of the compiled step (engine/observe_stage.cpp): each member a worker of its own, the bare one
// and one with the debugger's hooks. The hooks read tensors to the host inside the compiled forward, so dynamo
// breaks the graph at each; the account says so, the statistics are written, and both train the same curve.
TEST(InductorTrial, AnObserverTrialCountsTheGraphBreaksTheDebuggersHooksCause) {
  TrialSpec s = tiny_spec("bert-tiny", "inductor");
  s.model = tune::testing::without_dropout("bert-tiny");
  s.purpose = TrialPurpose::paired;
  s.paired.observers = {"tensor-stats"};
  s.paired.rounds = 2;
  s.paired.block_steps = 2;
  const fs::path dir = temp_dir("inductor-observer");
  const TrialResult r = run_trial_isolated(s, TUNE_EXECUTABLE, (dir / "t").string());
  ASSERT_TRUE(r.ok()) << r.error_stage << ": " << r.error_message;
  ASSERT_EQ(r.paired.size(), 2u);
  const PairedPart &bare = r.paired[0], &observed = r.paired[1];
  ASSERT_TRUE(observed.ok()) << observed.error_message;
  const auto overheads = observer_overheads(r);
  ASSERT_EQ(overheads.size(), 1u);
  const auto breaks = [](const std::string& counts) {
    std::smatch m;
    return std::regex_search(counts, m, std::regex("graph breaks (\\d+)")) ? std::stoi(m[1]) : -1;
  };
  ASSERT_GE(breaks(overheads[0].graphs_bare), 0) << bare.compile_info;
  EXPECT_GE(breaks(overheads[0].graphs_observed), breaks(overheads[0].graphs_bare) + 2)  // a break per layer at least
      << overheads[0].graphs_bare << " -> " << overheads[0].graphs_observed;
  EXPECT_NE(observed.observer_summary.find("6 steps collected, 12 layer outputs"), std::string::npos)
      << observed.observer_summary;  // bert-tiny: 2 layers; warm-up 2 + 2 rounds x 2 steps
  ASSERT_EQ(observed.losses.size(), bare.losses.size());
  for (size_t i = 0; i < bare.losses.size(); ++i) EXPECT_NEAR(observed.losses[i], bare.losses[i], 2e-3) << "step " << i;
}
