// `tune tuners`: the registered search strategies, the stages each serves and what it does, then each
// strategy's options with their defaults (set with --tuner-option or tuner_options in the settings YAML).
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "tuners/tuner_registry.h"
#include "util/join.h"
#include "util/table_format.h"

namespace tune::cli {

int run_tuners(int argc, char** argv) {
  po::options_description desc("tune tuners options");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune tuners")) return 0;
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : tuner_catalog()) {
    std::vector<std::string> stages;
    for (const auto objective : t.objectives)
      stages.push_back(objective == StageObjective::throughput ? "batch size" : "learning rate");
    rows.push_back({t.name, join(stages), t.summary});
  }
  write_markdown_table(std::cout, {"tuner", "stages", "what it does"}, rows);
  std::vector<std::vector<std::string>> options;
  for (const auto& t : tuner_catalog())
    for (const auto& o : t.options->specs())
      options.push_back({t.name, o.name, o.default_value ? strf("%g", *o.default_value) : "from " + o.from, o.doc});
  std::cout << "\n";
  write_markdown_table(std::cout, {"tuner", "option", "default", "what it does"}, options);
  return 0;
}

}  // namespace tune::cli
