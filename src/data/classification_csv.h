// Reads a labelled-text CSV (a header row, then one example per row) for sequence classification.
// The text and label columns are found by name; label strings map to ids in sorted order.
#pragma once
#include <string>
#include <vector>

namespace tune {

struct ClassificationDataset {
  std::string source;                    // the file read
  std::string text_column, label_column; // the header names chosen
  std::vector<std::string> label_names;  // id -> label string, sorted (numerically when all are integers)
  std::vector<std::string> texts;
  std::vector<int> labels;               // ids into label_names, one per text
};

// Text column: the first of "text", "sentence", "review" in the header (case-insensitive); label column:
// "label", then "score". Fields may be quoted ("a, b", doubled "" for a quote, line breaks inside quotes).
// Throws std::invalid_argument naming the file, and the line and column where a row is malformed.
ClassificationDataset read_classification_csv(const std::string& path);

// One CSV record split into fields (exposed for tests). `text` is the whole file; `pos` advances past the
// record and its line break; `line` counts the lines consumed. Throws on an unterminated quote.
std::vector<std::string> next_csv_record(const std::string& text, size_t& pos, int& line, const std::string& file);

}  // namespace tune
