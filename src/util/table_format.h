// Renders rows of strings as an aligned markdown table (readable in a terminal and in a CI summary).
// Reporters build the cells; this only lays them out.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace tune {

void write_markdown_table(std::ostream& out, const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows);

// printf-style formatting into a std::string, for table cells.
std::string strf(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace tune
