// `tune trial`: run one trial in this process and write its JSON result, from a spec file (what the
// search starts in a child process per trial) or from flags (a quick measurement by hand).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "instance/torch_instance.h"
#include "cli/options.h"
#include "engine/screening.h"
#include "engine/search_settings.h"
#include "instance/instance.h"
#include "trial/observer_registry.h"
#include "trial/backend_registry.h"
#include "trial/data_parallel.h"
#include "trial/fault_injection.h"
#include "trial/trial_runner.h"
#include "util/join.h"
#include "util/json_numbers.h"

namespace tune::cli {
namespace {

TrialSpec spec_from_file(const std::string& spec_path) {
  std::ifstream in(spec_path);
  if (!in) throw std::invalid_argument("trial spec '" + spec_path + "' cannot be read");
  try {
    const auto json = nlohmann::json::parse(in);
    check_json_numbers_fit(json, spec_path);
    return json.get<TrialSpec>();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("trial spec '" + spec_path + "' is not a valid spec: " + e.what());
  }
}

// --save-compile-artifacts / --compile-artifacts FILE: only a backend that compiles through Inductor's caches has any.
void carry_compile_flags(const po::variables_map& vm, TrialSpec& spec) {
  const bool save = vm.count("save-compile-artifacts") > 0;
  if (!save && !vm.count("compile-artifacts")) return;
  if (!keeps_compile_cache(spec.step.backend))
    throw std::invalid_argument("--save-compile-artifacts/--compile-artifacts with --backend '" + spec.step.backend +
                                "': expected a backend with a persistent compile cache (inductor)");
  spec.save_compile_artifacts = save;
  if (!vm.count("compile-artifacts")) return;
  const std::string file = vm["compile-artifacts"].as<std::string>();
  if (!std::filesystem::is_regular_file(file))
    throw std::invalid_argument("--compile-artifacts '" + file + "': expected a compile-artifacts.bin a trial saved "
                                "(tune trial --save-compile-artifacts)");
  spec.compile_artifacts = std::filesystem::absolute(file).string();
}

TrialSpec spec_from_flags(const po::variables_map& vm) {
  if (!vm.count("model")) throw std::invalid_argument("tune trial: give --spec FILE or --model NAME");
  TrialSpec spec;
  const ModelSource source = model_source(vm);
  spec.model = source.config;
  check_backend_label(vm["backend"].as<std::string>());
  apply_backend_label(spec.step, vm["backend"].as<std::string>());
  spec.step.precision = one_of("--precision", vm["precision"].as<std::string>(), kPrecisions);
  const TrainingChoice training = training_choice(vm, source);
  spec.step.attention = training.attention;
  spec.step.optimizer = training.optimizer;
  spec.batch_size = vm["batch-size"].as<int>();
  spec.seq_len = training.seq_len > 0 ? training.seq_len : spec.model.default_seq_len;
  spec.learning_rate = vm["lr"].as<double>();
  spec.seed = training.seed;
  spec.data = training.data;
  spec.weights_dir = training.weights;
  const Instance instance = resolve_instance("auto");  // the GPU when one is visible, as `tune --model` does
  spec.threads = instance.threads;
  spec.step.device = instance.device;
  if (spec.step.optimizer == "auto") spec.step.optimizer = default_optimizer(instance);
  if (vm.count("ranks")) spec.distributed.ranks = vm["ranks"].as<int>();
  if (vm.count("observer")) spec.step.observer = parse_observer(vm["observer"].as<std::string>()).text();
  if (vm.count("observers")) {
    spec.purpose = TrialPurpose::paired;
    spec.paired.observers = parse_observer_list(vm["observers"].as<std::string>());
    spec.paired.rounds = SearchSettings{}.observer_rounds;
    spec.paired.block_steps = SearchSettings{}.observer_block_steps;
  }
  carry_compile_flags(vm, spec);
  if (vm.count("steps")) {
    spec.purpose = TrialPurpose::learning_rate;
    spec.train_steps = vm["steps"].as<int>();
  }
  return spec;
}

void write_result(const TrialResult& result, const std::string& out) {
  const std::string text = nlohmann::json(result).dump(2);
  if (out == "-") std::cout << text << "\n";
  else std::ofstream(out) << text << "\n";
}

// Where a Python-worker backend keeps its files while the trial runs: --dir, else the result's folder.
std::string work_dir(const po::variables_map& vm, const std::string& out) {
  if (vm.count("dir")) return vm["dir"].as<std::string>();
  return out == "-" ? "." : std::filesystem::absolute(out).parent_path().string();
}

}  // namespace

int run_trial(int argc, char** argv) {
  po::options_description desc("tune trial options");
  desc.add_options()
      ("spec", po::value<std::string>(), "trial spec JSON (as written in a trial folder)")
      ("model", po::value<std::string>(), "without --spec: the model (tested name or YAML path)")
      ("backend", po::value<std::string>()->default_value(kNativeBackend),
       ("without --spec: " + backend_label_forms()).c_str())
      ("precision", po::value<std::string>()->default_value("fp32"), "without --spec: fp32, bf16 or fp16")
      ("batch-size", po::value<int>()->default_value(1), "without --spec: batch size")
      ("lr", po::value<double>()->default_value(1e-4), "without --spec: learning rate")
      ("steps", po::value<int>(), "without --spec: train this many steps (else a throughput trial)")
      ("observer", po::value<std::string>(), ("without --spec: attach a tool to every step: " + observer_names()).c_str())
      ("observers", po::value<std::string>(), "without --spec: an observer trial, the step without and with each of "
                                              "these tools in alternating blocks (6 rounds of 5 steps)")
      ("ranks", po::value<int>(), "without --spec: a data-parallel trial of this many ranks (processes; the batch is per rank)")
      ("save-compile-artifacts", "without --spec: write the compile's artifacts (torch.compiler.save_cache_artifacts) "
                                 "into the trial folder, to carry to another process or machine")
      ("compile-artifacts", po::value<std::string>(), "without --spec: load this compile-artifacts.bin into a fresh "
                                                      "cache before compiling (a carried compile: its time is the "
                                                      "warm compile on this machine)")
      ("rank", po::value<int>(), "internal: run this rank of the --spec's data-parallel trial (started by its rank 0)")
      ("out", po::value<std::string>()->default_value("-"), "result JSON file ('-': standard output)")
      ("dir", po::value<std::string>(), (join(backend_names(BackendRoute::python_worker)) +
                                         ": the folder for the worker's files (default: the --out file's)").c_str());
  desc.add(training_flags());  // without --spec
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune trial (--spec FILE | --model NAME [options]) [--out FILE]")) return 0;
  TrialSpec spec = vm.count("spec") ? spec_from_file(vm["spec"].as<std::string>()) : spec_from_flags(vm);
  const std::string out = vm["out"].as<std::string>();
  const InjectedFault fault = injected_fault(spec.batch_size);  // test only: none unless TUNE_TEST_FAULT is set
  if (vm.count("rank")) return run_data_parallel_rank(spec, vm["rank"].as<int>(), work_dir(vm, out), out);
  inject_before_trial(fault);
  inject_into_spec(fault, spec);
  const TrialResult result = run_trial_in_process(spec, work_dir(vm, out));
  write_result(result, out);
  if (out != "-") inject_after_result(fault, out);
  std::cerr << "tune: trial " << to_string(result.status)
            << (result.ok() ? "" : " (" + result.error_stage + ": " + result.error_message + ")") << "\n";
  if (result.ok() && result.data_parallel.ranks > 1)
    std::cerr << "tune: data-parallel: " << describe_data_parallel(result.data_parallel) << "\n";
  return 0;
}

}  // namespace tune::cli
