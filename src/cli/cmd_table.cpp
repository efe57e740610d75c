// `tune table`: the tested-models table from the store, as markdown, CSV, JSON or a self-contained
// HTML page with charts. reports/tested-models.* are this command's output for the reference store.
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "report/table_reporters.h"
#include "util/join.h"
#include "util/paths.h"

namespace tune::cli {

namespace {

// Rows of every database in turn (e.g. the CI instance's store and a GPU run's), named as the user gave them.
TestedModelsTable gather_all(const std::vector<std::string>& db_paths) {
  TestedModelsTable all;
  for (const auto& path : db_paths) {
    require_existing_database(path);  // reading a table must not leave an empty database behind a mistyped path
    const Database db(path);
    TestedModelsTable one = gather_tested_models(db, path);
    all.rows.insert(all.rows.end(), one.rows.begin(), one.rows.end());
  }
  all.source = join(db_paths, ", ");
  return all;
}

}  // namespace

int run_table(int argc, char** argv) {
  const std::string default_db = default_database_path();
  po::options_description desc("tune table options");
  desc.add_options()
      ("db", po::value<std::vector<std::string>>()->composing()->default_value({default_db}, default_db),
       "SQLite database to read; repeat to merge several (e.g. CPU and GPU runs)")
      ("format", po::value<std::string>()->default_value("md"),
       ("output format: " + join(reporter_formats(table_reporters()), ", ")).c_str())
      ("out,o", po::value<std::string>()->default_value("-"), "file to write ('-': standard output)");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune table [--db PATH]... [--format md|csv|json|html] [--out FILE]"))
    return 0;
  const auto reporter = make_table_reporter(vm["format"].as<std::string>());
  const TestedModelsTable table = gather_all(vm["db"].as<std::vector<std::string>>());
  const std::string out_path = vm["out"].as<std::string>();
  if (out_path == "-") {
    reporter->write(std::cout, table);
    return 0;
  }
  std::ofstream file(out_path);
  if (!file) throw std::invalid_argument("--out '" + out_path + "': cannot write this file");
  reporter->write(file, table);
  return 0;
}

}  // namespace tune::cli
