// The tested-models table's writers, in the style of Google Benchmark's reporters: each renders a
// gathered TestedModelsTable to a std::ostream (tests capture it), one file per format under src/report/.
#pragma once
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/tested_models_table.h"

namespace tune {

class TableWriter {
 public:
  virtual ~TableWriter() = default;
  virtual void write(std::ostream& out, const TestedModelsTable& table) const = 0;
};

std::unique_ptr<TableWriter> make_markdown_table_writer();
std::unique_ptr<TableWriter> make_csv_table_writer();
std::unique_ptr<TableWriter> make_json_table_writer();
std::unique_ptr<TableWriter> make_html_table_writer();

// The writer for "md", "csv", "json" or "html"; throws std::invalid_argument quoting any other name.
std::unique_ptr<TableWriter> make_table_writer(const std::string& format);
std::vector<std::string> table_formats();

// The markdown table and its notes, without the document's heading: what `tune --model` prints of its rows.
void write_markdown_rows(std::ostream& out, const TestedModelsTable& table);
// The rows as the JSON writer writes them (schema kTableJsonSchemaVersion): `tune --model --json` prints them.
nlohmann::json table_rows_json(const TestedModelsTable& table);

}  // namespace tune
