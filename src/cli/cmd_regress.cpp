// `tune regress`: measure the regression set of configs/ci.yaml and compare it with the committed reference
// (reports/ci-reference.json), or record that reference with --record.
// Exit 0: no regression, 1: regression, 2: could not run (bad input, stale reference, trials that could not run).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/options.h"
#include "instance/torch_instance.h"
#include "regress/regression_reporters.h"
#include "util/join.h"
#include "util/paths.h"
#include "util/table_format.h"

namespace tune::cli {
namespace {

std::string default_reference_path() { return (std::filesystem::path(tune_home()) / "reports" / "ci-reference.json").string(); }

// "jit=0.15" -> {"jit", 0.15} for a backend of the set.
std::map<std::string, double> parse_slowdowns(const std::vector<std::string>& texts, const RegressionConfig& c) {
  std::map<std::string, double> out;
  const auto backends = c.backends();
  for (const auto& text : texts) {
    std::pair<std::string, double> item{"", -1};
    try {
      item = name_value("--inject-slowdown", text, "jit=0.15");
    } catch (const std::invalid_argument&) {  // malformed: the message below says what is expected
    }
    const auto& [backend, share] = item;
    if (std::find(backends.begin(), backends.end(), backend) == backends.end() || !(share > 0 && share <= 10))
      throw std::invalid_argument("--inject-slowdown '" + text + "': expected BACKEND=SHARE with BACKEND one of " +
                                  join(backends) + " and SHARE in (0, 10], e.g. jit=0.15");
    out[backend] = share;
  }
  if (out.size() > 1)  // a paired trial slows one backend (TrialSpec::slowed_backend)
    throw std::invalid_argument("--inject-slowdown given for " + std::to_string(out.size()) +
                                " backends: expected one BACKEND=SHARE");
  return out;
}

po::options_description regress_options() {
  po::options_description desc("tune regress options");
  desc.add_options()
      ("config", po::value<std::string>()->default_value(default_regression_config_path()), "regression set and thresholds (YAML)")
      ("reference", po::value<std::string>()->default_value(default_reference_path()), "reference JSON to compare with (or to write with --record)")
      ("record", po::bool_switch(), "measure the set and write it as the reference instead of comparing")
      ("models", po::value<std::string>(), "comma-separated subset of the config's models (default: all of them)")
      ("markdown", po::value<std::string>(), "also write the markdown report to this file")
      ("json", po::value<std::string>(), "write the JSON report (schema version 1) to this file")
      ("runs-dir", po::value<std::string>()->default_value((std::filesystem::temp_directory_path() / "tune-regress").string()),
       "folder for the trial folders (spec, log, result, command.sh)")
      ("inject-slowdown", po::value<std::vector<std::string>>()->composing(),
       "TEST ONLY: BACKEND=SHARE makes every step of BACKEND that share slower (proves the check catches it)");
  return desc;
}

RegressionConfig config_from(const po::variables_map& vm) {
  RegressionConfig config = load_regression_config(vm["config"].as<std::string>());
  if (vm.count("models")) config.models = comma_list(vm["models"].as<std::string>());
  if (config.models.empty()) throw std::invalid_argument("--models '" + vm["models"].as<std::string>() + "': expected model names");
  return config;
}

// Where and how the trials run; a malformed --inject-slowdown fails here, before anything is measured.
RegressionRunContext context_from(const po::variables_map& vm, const RegressionConfig& config) {
  RegressionRunContext context;
  context.instance = resolve_instance("auto");
  context.libtorch_version = libtorch_version();
  context.tune_executable = self_executable();
  context.runs_dir = vm["runs-dir"].as<std::string>();
  if (vm.count("inject-slowdown"))
    context.inject_slowdown = parse_slowdowns(vm["inject-slowdown"].as<std::vector<std::string>>(), config);
  context.progress = &std::cerr;
  return context;
}

RegressionRun measure(const RegressionConfig& config, const RegressionRunContext& context) {
  std::cerr << "tune regress: " << config.models.size() << " model(s) x " << join(config.measured_backends()) << ", "
            << config.repeats << " paired trial processes per model (" << config.rounds << " rounds of "
            << config.block_steps << " steps per backend), trials in " << context.runs_dir << "\n";
  return measure_regression_set(config, context);
}

// The reference a recording replaces, for its session history; none (a first recording, or an unreadable
// file, said on stderr) starts a new history rather than losing the measurement just made.
RegressionRun previous_reference(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  try {
    return read_regression_run(path);
  } catch (const std::invalid_argument& e) {
    std::cerr << "tune regress: the earlier reference's sessions are not kept: " << e.what() << "\n";
    return {};
  }
}

int record(const RegressionConfig& config, const RegressionRunContext& context, const std::string& path) {
  if (!context.inject_slowdown.empty())
    throw std::invalid_argument("--record with --inject-slowdown: a reference must not hold an injected slowdown");
  const RegressionRun run = measure(config, context);
  if (!run.all_ok()) {
    std::cerr << "tune regress: could not record: some trials failed:\n";
    for (const auto& m : run.models)
      for (const auto& b : m.backends)
        if (!b.ok()) std::cerr << "- " << m.model << " " << b.backend << ": " << to_string(b.status) << ": " << b.error << "\n";
    return 2;
  }
  RegressionRun recorded = run;
  carry_sessions(previous_reference(path), recorded);
  write_regression_run(path, recorded);
  std::cout << "tune regress: recorded " << run.models.size() << " model(s) on " << run.instance_fingerprint << " into "
            << path << " (session " << recorded.sessions.size() << " of this instance and settings)\n";
  return 0;
}

// The markdown on stdout, and in the files --markdown and --json name (regress/regression_reporters.h).
void write_outputs(const po::variables_map& vm, const RegressionOutcome& outcome) {
  const auto markdown = make_regression_reporter("md");
  markdown->write(std::cout, outcome);
  if (vm.count("markdown")) {
    std::ofstream out(vm["markdown"].as<std::string>());
    markdown->write(out, outcome);
  }
  if (vm.count("json")) {
    std::ofstream out(vm["json"].as<std::string>());
    make_regression_reporter("json")->write(out, outcome);
  }
}

int regress(int argc, char** argv) {
  po::options_description desc = regress_options();
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune regress [--config YAML] [--reference JSON] [--record] [--models LIST]"))
    return 0;
  const RegressionConfig config = config_from(vm);
  const RegressionRunContext context = context_from(vm, config);
  const std::string reference_path = vm["reference"].as<std::string>();
  if (vm["record"].as<bool>()) return record(config, context, reference_path);
  const RegressionRun reference = read_regression_run(reference_path);
  // A stale reference is found before any trial runs: compare_runs reports the same problems.
  RegressionRun current;
  if (reference_problems(reference, config).empty()) current = measure(config, context);
  const RegressionOutcome outcome{compare_runs(reference, reference_path, current, config), current};
  write_outputs(vm, outcome);
  return outcome.report.exit_code();
}

}  // namespace

// Exit 2 for anything that kept the comparison from running, so 1 always means a real regression.
int run_regress(int argc, char** argv) {
  try {
    return regress(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "tune regress: could not run: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace tune::cli
