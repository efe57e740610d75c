// Picks the tested-models table writer by format name (`tune table --format`).
// The writers themselves live one per file: markdown_, csv_, json_ and html_table_writer.cpp.
#include "report/table_writer.h"

#include <stdexcept>

#include "util/join.h"

namespace tune {

std::vector<std::string> table_formats() { return {"md", "csv", "json", "html"}; }

std::unique_ptr<TableWriter> make_table_writer(const std::string& format) {
  if (format == "md") return make_markdown_table_writer();
  if (format == "csv") return make_csv_table_writer();
  if (format == "json") return make_json_table_writer();
  if (format == "html") return make_html_table_writer();
  throw std::invalid_argument("table format '" + format + "': expected one of " + join(table_formats(), ", "));
}

}  // namespace tune
