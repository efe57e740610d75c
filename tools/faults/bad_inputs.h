// The bad-input table: each bad value a new user may give tune, what tune said, its exit code, and whether it
// wrote to the store (it must not: a user error is found before any trial runs).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace tune::faults {

struct BadInputRow {
  std::string input;    // what was wrong, in words
  std::string flags;    // the command line's flags
  std::string quoted;   // the bad value the message must quote
  int exit_code = -1;
  std::string message;  // tune's error line
  bool store_written = false;
  bool value_quoted() const { return message.find(quoted) != std::string::npos; }
  bool ok() const { return exit_code == 2 && value_quoted() && !store_written; }  // exit 2, quoted, nothing written
};

std::vector<BadInputRow> try_bad_inputs(const std::string& tune, const std::filesystem::path& work);

}  // namespace tune::faults
