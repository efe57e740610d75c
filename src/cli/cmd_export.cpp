// `tune export`: one database as a versioned JSON document (store/export.h), for scripts that would otherwise
// read tune's SQLite tables. JSON is the only format: --json is accepted and is the default.
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "store/export.h"
#include "util/paths.h"

namespace tune::cli {

int run_export(int argc, char** argv) {
  const std::string default_db = default_database_path();
  po::options_description desc("tune export options");
  desc.add_options()
      ("db", po::value<std::string>()->default_value(default_db), "SQLite database to export (must exist)")
      ("json", po::bool_switch(), "JSON output (the only format, also the default)")
      ("out,o", po::value<std::string>()->default_value("-"), "file to write ('-': standard output)");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune export [--db PATH] [--json] [--out FILE]")) return 0;
  const std::string path = vm["db"].as<std::string>();
  require_existing_database(path);
  const Database db(path);
  const std::string text = export_database(db, path).dump(2) + "\n";
  const std::string out_path = vm["out"].as<std::string>();
  if (out_path == "-") {
    std::cout << text;
    return 0;
  }
  std::ofstream file(out_path);
  if (!file) throw std::invalid_argument("--out '" + out_path + "': cannot write this file");
  file << text;
  return 0;
}

}  // namespace tune::cli
