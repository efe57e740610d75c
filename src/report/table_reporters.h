// The tested-models table's reporters (report/reporter.h): each renders a gathered TestedModelsTable to a
// std::ostream (tests capture it), one file per format under src/report/: table_{markdown,csv,json,html}_reporter.cpp.
#pragma once
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/reporter.h"
#include "report/tested_models_table.h"

namespace tune {

using TableReporter = Reporter<TestedModelsTable>;

std::unique_ptr<TableReporter> make_table_markdown_reporter();
std::unique_ptr<TableReporter> make_table_csv_reporter();
std::unique_ptr<TableReporter> make_table_json_reporter();
std::unique_ptr<TableReporter> make_table_html_reporter();

// md, csv, json and html, in that order (`tune table --format`, scripts/report).
ReporterList<TestedModelsTable> table_reporters();
// The reporter for "md", "csv", "json" or "html"; throws std::invalid_argument quoting any other name.
std::unique_ptr<TableReporter> make_table_reporter(const std::string& format);

// The markdown table and its notes, without the document's heading: what `tune --model` prints of its rows.
void write_markdown_rows(std::ostream& out, const TestedModelsTable& table);
// The rows as the JSON reporter writes them (schema kTableJsonSchemaVersion): `tune --model --json` prints them.
nlohmann::json table_rows_json(const TestedModelsTable& table);

}  // namespace tune
