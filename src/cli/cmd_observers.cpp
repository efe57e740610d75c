// `tune observers`: the tools `--observers` can attach to a step, what each does, and how to read its figures.
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "trial/observer_registry.h"
#include "util/table_format.h"

namespace tune::cli {

int run_observers(int argc, char** argv) {
  po::options_description desc("tune observers options");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune observers")) return 0;
  std::vector<std::vector<std::string>> rows;
  for (const auto& o : registered_observers())
    rows.push_back({o.takes_interval ? o.name + "[:N]" : o.name, o.summary});
  write_markdown_table(std::cout, {"observer", "what it does each step"}, rows);
  std::cout << "\n`tune --model NAME --observers LIST` (or all) times the row's native and fastest compiled step "
               "without and with each tool, in alternating blocks of one process; the answer and the table give the "
               "step time with it over without and its 95% interval (docs/observers.md).\n";
  return 0;
}

}  // namespace tune::cli
