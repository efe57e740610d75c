// Picks the tested-models table's reporter by format name (`tune table --format`).
// The reporters themselves live one per file: table_markdown_, table_csv_, table_json_ and table_html_reporter.cpp.
#include "report/table_reporters.h"

namespace tune {

ReporterList<TestedModelsTable> table_reporters() {
  ReporterList<TestedModelsTable> list;
  list.push_back(make_table_markdown_reporter());
  list.push_back(make_table_csv_reporter());
  list.push_back(make_table_json_reporter());
  list.push_back(make_table_html_reporter());
  return list;
}

std::unique_ptr<TableReporter> make_table_reporter(const std::string& format) {
  return pick_reporter("table", format, table_reporters());
}

}  // namespace tune
