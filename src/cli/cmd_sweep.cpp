// `tune sweep FILE`: every study of a sweep file through its executor (local or Slurm), merged into one store,
// then the table; --status shows each study, --cancel stops the sweep's jobs. Rerun to resume or re-attach.
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "sweep/sweep_coordinator.h"
#include "util/paths.h"

namespace tune::cli {

int run_sweep(int argc, char** argv) {
  po::options_description desc("tune sweep options");
  desc.add_options()
      ("file", po::value<std::string>(), "the sweep file (YAML; see configs/sweeps/)")
      ("status", po::bool_switch(), "print each study's state (as its executor sees it now) and exit")
      ("cancel", po::bool_switch(), "cancel the sweep's queued and running jobs (a later run resumes)")
      ("executor", po::value<std::string>(), "local or slurm, over the file's executor:");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune sweep FILE [--status | --cancel] [--executor local|slurm]", &positional))
    return 0;
  if (!vm.count("file")) throw std::invalid_argument("tune sweep: expected a sweep file (tune sweep FILE)");
  SweepSpec spec = read_sweep_spec(vm["file"].as<std::string>());
  if (vm.count("executor")) {
    spec.executor = one_of("--executor", vm["executor"].as<std::string>(), {"local", "slurm"});
    if (spec.executor == "slurm" && spec.partitions.empty())
      throw std::invalid_argument("--executor slurm: " + spec.file + " names no slurm.partitions");
  }
  const auto executor = make_executor(spec, self_executable());
  if (vm["status"].as<bool>()) {
    print_sweep_status(spec, *executor, std::cout);
    return 0;
  }
  if (vm["cancel"].as<bool>()) {
    cancel_sweep(spec, *executor, std::cout);
    return 0;
  }
  return tune::run_sweep(spec, *executor, std::cout);
}

}  // namespace tune::cli
