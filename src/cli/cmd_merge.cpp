// `tune merge INTO.db A.db [B.db ...]`: copies the studies, trials, best configs and screen verdicts of each
// database into INTO (created if new). Idempotent; a study both hold with different results is refused.
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "store/database.h"

namespace tune::cli {

int run_merge(int argc, char** argv) {
  po::options_description desc("tune merge options");
  desc.add_options()("databases", po::value<std::vector<std::string>>()->composing(),
                     "INTO.db then the databases merged into it");
  po::positional_options_description positional;
  positional.add("databases", -1);
  po::variables_map vm;
  const std::string usage = "tune merge INTO.db A.db [B.db ...]";
  if (!parse_or_help(argc, argv, desc, vm, usage, &positional)) return 0;
  const auto paths = vm.count("databases") ? vm["databases"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (paths.size() < 2) throw std::invalid_argument("expected the database to merge into and at least one to merge (" + usage + ")");
  for (size_t i = 1; i < paths.size(); ++i) require_existing_database(paths[i]);
  Database into(paths[0]);
  for (size_t i = 1; i < paths.size(); ++i) {
    const MergeCounts c = into.merge_from(paths[i]);
    std::cout << "tune merge: " << paths[i] << " -> " << paths[0] << ": " << c.studies_added << " studies, "
              << c.trials_added << " trials (" << c.trials_present << " there already), " << c.bests_added
              << " best configs, " << c.verdicts_added << " screen verdicts, " << c.peaks_added
              << " measured peaks added\n";
  }
  return 0;
}

}  // namespace tune::cli
