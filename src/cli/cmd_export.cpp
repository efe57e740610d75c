// `tune export`: one database as a versioned JSON document (store/export.h), for scripts that would otherwise
// read tune's SQLite tables; with --emit FORMATS --model NAME, the stored answer for that model as files for the
// user's training library (report/config_emitters.h), and the answer in a few lines.
#include <algorithm>
#include <fstream>
#include <iostream>

#include "cli/answer_files.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "engine/search_settings.h"
#include "report/tested_models_table.h"
#include "store/export.h"
#include "util/paths.h"

namespace tune::cli {

namespace {

// The stored rows of --model (and --instance, where the store holds the model on several instances or sequence
// lengths), answered as report/answer.h does; a model the store lacks is named, with those it holds.
RunAnswer stored_answer(const po::variables_map& vm, const Database& db, const std::string& path) {
  if (!vm.count("model")) throw std::invalid_argument("--emit needs --model NAME: the model whose stored answer to write");
  const std::string model = vm["model"].as<std::string>();
  const std::string instance = vm.count("instance") ? vm["instance"].as<std::string>() : "";
  TestedModelsTable table = gather_tested_models(db, path);
  std::vector<std::string> held;
  std::vector<TableRow> rows;
  for (const TableRow& row : table.rows) {
    const std::string where = row.model + " on " + row.instance.name + " seq " + std::to_string(row.seq_len);
    if (std::find(held.begin(), held.end(), where) == held.end()) held.push_back(where);
    if (row.model == model && (instance.empty() || row.instance.name == instance)) rows.push_back(row);
  }
  for (const TableRow& row : rows)
    if (row.instance.name != rows.front().instance.name || row.seq_len != rows.front().seq_len)
      throw std::invalid_argument("--model '" + model + "': the store holds it on several instances or sequence "
                                  "lengths; name one with --instance (held: " + join(held, "; ") + ")");
  table.rows = rows;
  const std::optional<RunAnswer> answer = answer_from(table, answer_options(vm, JobLength{}, load_search_settings(vm["settings"].as<std::string>()).lr_warmup_share));
  if (!answer)
    throw std::invalid_argument("--model '" + model + "'" + (instance.empty() ? "" : " --instance '" + instance + "'") +
                                ": database '" + path + "' holds no searched answer for it (held: " + join(held, "; ") + ")");
  return *answer;
}

}  // namespace

int run_export(int argc, char** argv) {
  const std::string default_db = default_database_path();
  po::options_description desc("tune export options");
  desc.add_options()
      ("db", po::value<std::string>()->default_value(default_db), "SQLite database to export (must exist)")
      ("json", po::bool_switch(), "JSON output (the only format, also the default)")
      ("out,o", po::value<std::string>()->default_value("-"), "file to write ('-': standard output)")
      ("model", po::value<std::string>(), "with --emit: the model whose stored answer to write")
      ("instance", po::value<std::string>(), "with --emit: its instance, where the store holds several")
      ("settings", po::value<std::string>()->default_value(default_search_settings_path()),
       "with --emit: the search settings the store's searches ran with (their rate trials' warm-up share)");
  desc.add(emit_flags());
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm,
                     "tune export [--db PATH] [--json] [--out FILE] | --emit FORMATS --model NAME [--emit-dir DIR]"))
    return 0;
  const std::string path = vm["db"].as<std::string>();
  require_existing_database(path);
  const Database db(path);
  if (!emit_formats(vm).empty()) {
    const RunAnswer answer = stored_answer(vm, db, path);
    write_answer(std::cout, answer, write_emitted_files(vm, answer), "");
    return 0;
  }
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
