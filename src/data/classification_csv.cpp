// CSV parsing (RFC 4180 quoting) and column choice for classification datasets; torch-free.
// Every error names the file, and the line and column of a malformed row, so a user can fix the data.
#include "data/classification_csv.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace tune {
namespace {

std::string read_whole_file(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw std::invalid_argument("dataset '" + path + "' does not exist (expected a CSV file with a header row)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("dataset '" + path + "' cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Index of the first header name among `wanted` (case-insensitive), or throws listing the header.
size_t find_column(const std::vector<std::string>& header, const std::vector<std::string>& wanted,
                   const std::string& role, const std::string& file) {
  for (const auto& name : wanted)
    for (size_t i = 0; i < header.size(); ++i)
      if (lowercase(header[i]) == name) return i;
  std::string have, want;
  for (const auto& h : header) have += (have.empty() ? "'" : ", '") + h + "'";
  for (const auto& w : wanted) want += (want.empty() ? "'" : ", '") + w + "'";
  throw std::invalid_argument(file + ":1: no " + role + " column: expected one named " + want + ", header has " + have);
}

bool is_integer(const std::string& s) {
  if (s.empty()) return false;
  size_t start = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  return start < s.size() && std::all_of(s.begin() + start, s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// An integer label's value as text: its sign and its digits without leading zeros ("-0" is zero, not negative).
std::pair<bool, std::string> integer_value(const std::string& s) {
  const size_t first = s.find_first_not_of('0', (s[0] == '-' || s[0] == '+') ? 1 : 0);
  const std::string digits = first == std::string::npos ? "" : s.substr(first);
  return {s[0] == '-' && !digits.empty(), digits};
}

// Integer labels by value at any length (a label need not fit a long long: the fuzzer's did not); labels of one
// value written apart ("7", "07", "+7") in text order.
bool integer_less(const std::string& a, const std::string& b) {
  const auto [a_negative, a_digits] = integer_value(a);
  const auto [b_negative, b_digits] = integer_value(b);
  if (a_negative != b_negative) return a_negative;
  if (a_digits == b_digits) return a < b;
  const bool a_smaller = a_digits.size() != b_digits.size() ? a_digits.size() < b_digits.size() : a_digits < b_digits;
  return a_negative ? !a_smaller : a_smaller;  // a larger magnitude is the smaller negative
}

// Distinct labels in sorted order: numeric order when every label is an integer ("2" before "10").
std::vector<std::string> sorted_labels(const std::vector<std::string>& raw) {
  std::vector<std::string> names(raw.begin(), raw.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (std::all_of(names.begin(), names.end(), is_integer)) std::sort(names.begin(), names.end(), integer_less);
  return names;
}

}  // namespace

std::vector<std::string> next_csv_record(const std::string& text, size_t& pos, int& line, const std::string& file) {
  std::vector<std::string> fields(1);
  const int start_line = line;
  bool quoted = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (quoted) {
      if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') fields.back() += '"', ++pos;
      else if (c == '"') quoted = false;
      else fields.back() += c, line += (c == '\n');
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n' || c == '\r') {
      pos += (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') ? 2 : 1;
      ++line;
      return fields;
    } else {
      fields.back() += c;
    }
  }
  if (quoted)
    throw std::invalid_argument(file + ":" + std::to_string(start_line) + ": unterminated quoted field (a '\"' opened on this row never closes)");
  ++line;
  return fields;
}

ClassificationDataset read_classification_csv(const std::string& path) {
  const std::string text = read_whole_file(path);
  size_t pos = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // skip a UTF-8 byte-order mark
  int line = 1;
  const auto header = next_csv_record(text, pos, line, path);
  const size_t text_col = find_column(header, {"text", "sentence", "review"}, "text", path);
  const size_t label_col = find_column(header, {"label", "score"}, "label", path);
  ClassificationDataset data{path, header[text_col], header[label_col], {}, {}, {}};
  std::vector<std::string> raw_labels;
  while (pos < text.size()) {
    const int row_line = line;
    const auto fields = next_csv_record(text, pos, line, path);
    if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
    if (fields.size() != header.size())
      throw std::invalid_argument(path + ":" + std::to_string(row_line) + ": expected " + std::to_string(header.size()) +
                                  " columns as in the header, got " + std::to_string(fields.size()));
    if (fields[label_col].empty())
      throw std::invalid_argument(path + ":" + std::to_string(row_line) + ": column '" + data.label_column +
                                  "' is empty (every row needs a label)");
    data.texts.push_back(fields[text_col]);
    raw_labels.push_back(fields[label_col]);
  }
  if (data.texts.empty()) throw std::invalid_argument(path + ": no rows after the header");
  data.label_names = sorted_labels(raw_labels);
  std::map<std::string, int> ids;
  for (size_t i = 0; i < data.label_names.size(); ++i) ids[data.label_names[i]] = static_cast<int>(i);
  for (const auto& l : raw_labels) data.labels.push_back(ids.at(l));
  return data;
}

}  // namespace tune
