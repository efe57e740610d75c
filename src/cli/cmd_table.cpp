// `tune table`: the tested-models table from the store, as markdown, CSV, JSON or a self-contained
// HTML page with charts. reports/tested-models.* are this command's output for the reference store.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "report/table_writer.h"
#include "util/join.h"
#include "util/paths.h"

namespace tune::cli {

int run_table(int argc, char** argv) {
  po::options_description desc("tune table options");
  desc.add_options()
      ("db", po::value<std::string>()->default_value(default_database_path()), "SQLite database to read")
      ("format", po::value<std::string>()->default_value("md"), ("output format: " + join(table_formats(), ", ")).c_str())
      ("out,o", po::value<std::string>()->default_value("-"), "file to write ('-': standard output)");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune table [--db PATH] [--format md|csv|json|html] [--out FILE]"))
    return 0;
  const auto writer = make_table_writer(vm["format"].as<std::string>());
  const std::string db_path = vm["db"].as<std::string>();
  // Reading a table must not leave an empty database behind a mistyped path.
  if (!std::filesystem::exists(db_path))
    throw std::invalid_argument("--db '" + db_path + "': no such database (run `tune --model NAME --db PATH` first)");
  const Database db(db_path);
  const TestedModelsTable table = gather_tested_models(db, db_path);
  const std::string out_path = vm["out"].as<std::string>();
  if (out_path == "-") {
    writer->write(std::cout, table);
    return 0;
  }
  std::ofstream file(out_path);
  if (!file) throw std::invalid_argument("--out '" + out_path + "': cannot write this file");
  writer->write(file, table);
  return 0;
}

}  // namespace tune::cli
