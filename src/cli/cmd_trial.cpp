// `tune trial --spec FILE [--out FILE]`: run one trial in this process and write its JSON result.
// The search starts this in a child process per trial; it also reruns a trial folder by hand.
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "trial/trial_runner.h"

namespace tune::cli {

int run_trial(int argc, char** argv) {
  po::options_description desc("tune trial options");
  desc.add_options()
      ("spec", po::value<std::string>()->required(), "trial spec JSON (as written in a trial folder)")
      ("out", po::value<std::string>()->default_value("-"), "result JSON file ('-': standard output)");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune trial --spec FILE [--out FILE]")) return 0;
  const std::string spec_path = vm["spec"].as<std::string>();
  std::ifstream in(spec_path);
  if (!in) throw std::invalid_argument("trial spec '" + spec_path + "' cannot be read");
  TrialSpec spec;
  try {
    spec = nlohmann::json::parse(in).get<TrialSpec>();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("trial spec '" + spec_path + "' is not a valid spec: " + e.what());
  }
  const TrialResult result = run_trial_in_process(spec);
  const std::string text = nlohmann::json(result).dump(2);
  const std::string out = vm["out"].as<std::string>();
  if (out == "-") std::cout << text << "\n";
  else std::ofstream(out) << text << "\n";
  std::cerr << "tune: trial " << to_string(result.status)
            << (result.ok() ? "" : " (" + result.error_stage + ": " + result.error_message + ")") << "\n";
  return 0;
}

}  // namespace tune::cli
