// `tune regress`: compare the current store's best configs with a reference store.
// Exit 0: no regression, 1: regression, 2: could not run (bad input).
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "report/regression_report.h"
#include "util/paths.h"
#include "util/yaml_fields.h"

namespace tune::cli {
namespace {

double threshold_from(const std::string& path) {
  double max_drop = 0.2;
  read_yaml_key(load_yaml_file(path), "max_throughput_drop", max_drop, path);
  return max_drop;
}

int regress(int argc, char** argv) {
  po::options_description desc("tune regress options");
  desc.add_options()
      ("reference", po::value<std::string>()->required(), "reference SQLite database")
      ("db", po::value<std::string>()->default_value(default_database_path()), "current SQLite database")
      ("config", po::value<std::string>()->default_value(configs_dir() + "/ci.yaml"), "thresholds YAML");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune regress --reference DB [--db DB] [--config YAML]")) return 0;
  const std::string ref_path = vm["reference"].as<std::string>();
  if (!std::filesystem::exists(ref_path)) throw std::invalid_argument("reference database '" + ref_path + "' does not exist");
  const double max_drop = threshold_from(vm["config"].as<std::string>());
  Database reference(ref_path);
  Database current(vm["db"].as<std::string>());
  const RegressionReport report = compare_best(reference.best_rows(), current.best_rows(), max_drop);
  write_regression_markdown(std::cout, report, max_drop);
  return report.regression() ? 1 : 0;
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
