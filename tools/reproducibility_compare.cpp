// reproducibility_compare FIRST.json SECOND.json: the reproducibility comparison of two sittings' tables
// (`tune table --format json` of each sitting's store), markdown on stdout (tools/reproducibility_report.h).
// scripts/reproducibility runs the sittings and writes it to reports/reproducibility.md.
#include <iostream>
#include <stdexcept>

#include "tools/report_text.h"
#include "tools/reproducibility_report.h"

namespace {

nlohmann::json read_table(const std::string& path) {
  try {
    return nlohmann::json::parse(tune::read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("'" + path + "': expected a tested-models table as JSON (tune table --format json): " +
                                e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]).rfind("-", 0) == 0) {
    std::cerr << "usage: reproducibility_compare FIRST.json SECOND.json   (markdown on stdout)\n";
    return 2;
  }
  try {
    const auto comparison = tune::compare_sittings(read_table(argv[1]), read_table(argv[2]));
    tune::pick_reporter("reproducibility", "md", tune::reproducibility_reporters())->write(std::cout, comparison);
  } catch (const std::exception& e) {
    std::cerr << "reproducibility_compare: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
