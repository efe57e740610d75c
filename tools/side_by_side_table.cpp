// side_by_side_table STORE.db: the side-by-side table of scripts/side-by-side's store, markdown on stdout
// (tools/side_by_side_report.h). scripts/side-by-side writes it to reports/side-by-side/table.md.
#include <iostream>
#include <stdexcept>

#include "tools/side_by_side_report.h"

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]).rfind("-", 0) == 0) {
    std::cerr << "usage: side_by_side_table STORE.db   (the side-by-side table as markdown on stdout)\n";
    return 2;
  }
  try {
    const tune::SideBySideStore store = tune::read_side_by_side_store(argv[1]);
    tune::pick_reporter("side-by-side table", "md", tune::side_by_side_reporters())->write(std::cout, store);
  } catch (const std::exception& e) {
    std::cerr << "side_by_side_table: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
