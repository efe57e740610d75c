// Renders rows of strings as an aligned markdown table.
// Column widths come from the widest cell, so the raw text reads as a table too.
#include "util/table_format.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace tune {

namespace {

// Characters as a reader counts them (UTF-8 continuation bytes are not), so a "≥" pads like one column.
size_t display_width(const std::string& text) {
  size_t width = 0;
  for (unsigned char ch : text) width += (ch & 0xC0) != 0x80;
  return width;
}

}  // namespace

void write_markdown_table(std::ostream& out, const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = std::max<size_t>(3, display_width(header[c]));
    for (const auto& row : rows) width[c] = std::max(width[c], c < row.size() ? display_width(row[c]) : 0);
  }
  auto line = [&](const std::vector<std::string>& cells) {
    out << "|";
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      out << " " << cell << std::string(width[c] - display_width(cell), ' ') << " |";
    }
    out << "\n";
  };
  line(header);
  out << "|";
  for (size_t w : width) out << " " << std::string(w, '-') << " |";
  out << "\n";
  for (const auto& row : rows) line(row);
}

std::string strf(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

}  // namespace tune
