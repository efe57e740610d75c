// Renders a report through one of its reporters into a string, for the reporter tests (report/reporter.h).
#pragma once
#include <sstream>
#include <string>

#include "report/reporter.h"

namespace tune::testing {

template <typename Report>
std::string render(ReporterList<Report> reporters, const std::string& format, const Report& report) {
  std::ostringstream out;
  pick_reporter("test", format, std::move(reporters))->write(out, report);
  return out.str();
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace tune::testing
