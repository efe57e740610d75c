// tune's entry point: dispatches to a subcommand and turns errors into messages and exit codes
// (2: bad input from the user, 1: a failure while running).
#include <boost/program_options.hpp>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

#include "cli/commands.h"
#include "util/fork_server.h"

namespace {

int usage() {
  std::cout << "tune: find the best batch size and learning rate, native and compiled, for a model here\n\n"
               "usage:\n"
               "  tune --model NAME [--instance NAME] [--db PATH] [--seq-len N] [--budget DURATION]\n"
               "       [--backends LIST] [--seed N] [--json]      search and print the best configs\n"
               "  tune models                                     list the tested models\n"
               "  tune tuners                                     list the search strategies (--tuner NAME)\n"
               "  tune observers                                  list the tools --observers times a step with\n"
               "  tune instance [--instance NAME] [--measure-peak] the detected instance, its measured matmul peaks\n"
               "  tune table [--db PATH] [--format md|json]       the tested-models table from the store\n"
               "  tune export [--db PATH] [--json] [--out FILE]   one database as JSON (studies, best configs, trials)\n"
               "  tune regress [--record] [--config YAML]          noise-aware regression check (exit 0 ok, 1 regression, 2 could not run)\n"
               "  tune trial --spec FILE [--out FILE]             run one trial in this process\n"
               "  tune merge INTO.db A.db [B.db ...]              merge databases into one (idempotent)\n"
               "  tune sweep FILE [--status|--cancel]             run a sweep file's studies (local or Slurm), merged\n\n"
               "Each subcommand takes --help.\n";
  return 0;
}

int dispatch(int argc, char** argv) {
  using namespace tune::cli;
  if (argc < 2) return usage();
  const std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") return usage();
  if (first == "models") return run_models(argc - 1, argv + 1);
  if (first == "instance") return run_instance(argc - 1, argv + 1);
  if (first == "table") return run_table(argc - 1, argv + 1);
  if (first == "export") return run_export(argc - 1, argv + 1);
  if (first == "regress") return run_regress(argc - 1, argv + 1);
  if (first == "trial") return run_trial(argc - 1, argv + 1);
  if (first == "tuners") return run_tuners(argc - 1, argv + 1);
  if (first == "observers") return run_observers(argc - 1, argv + 1);
  if (first == "merge") return run_merge(argc - 1, argv + 1);
  if (first == "sweep") return run_sweep(argc - 1, argv + 1);
  if (first.rfind("-", 0) != 0)
    throw std::invalid_argument("unknown command '" + first + "': expected models, instance, table, export, regress, trial, tuners, observers, merge, sweep or --model NAME");
  return run_tune(argc, argv);
}

// main's body, also what the fork server's children run (a `tune trial` forked rather than exec'd).
int run_main(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const boost::program_options::error& e) {
    std::cerr << "tune: error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "tune: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tune: failed: " << e.what() << "\n";
    return 1;
  }
}

// A search runs dozens of trials, each a `tune trial` child; forking them from a server started here, before
// anything touched libtorch, saves libtorch's load (~0.4 s of a tiny model's ~0.55 s trial on this CPU).
// TUNE_FORK_SERVER=0 execs every trial instead. tune regress keeps exec: its processes' independence
// (fresh address layout each) is what its statistics were measured with.
bool wants_fork_server(int argc, char** argv) {
  const char* setting = std::getenv("TUNE_FORK_SERVER");
  if (setting && std::string(setting) == "0") return false;
  return argc >= 2 && argv[1][0] == '-' && std::strcmp(argv[1], "--help") != 0 && std::strcmp(argv[1], "-h") != 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (wants_fork_server(argc, argv)) {
    try {
      tune::start_fork_server(run_main);
    } catch (const std::exception& e) {
      std::cerr << "tune: no fork server (" << e.what() << "): every trial starts tune anew\n";
    }
  }
  return run_main(argc, argv);
}
