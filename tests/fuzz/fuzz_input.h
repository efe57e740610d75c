// What every libFuzzer target shares: the input as a file (tune's parsers read paths), and the rule they check:
// bad bytes are a user error (std::invalid_argument), never a crash, a hang, another exception or UB.
#pragma once
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace tune::fuzz {

// The input written to a file named `name` in this process's own folder (kept across runs: rewritten each time).
inline std::string input_file(const uint8_t* data, size_t size, const std::string& name) {
  static const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tune-fuzz-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                               static_cast<std::streamsize>(size));
  return path.string();
}

// Runs f; a user error is the expected answer to bad bytes. Anything else escapes and libFuzzer reports it.
template <typename F>
void expect_user_error_at_most(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
  }
}

}  // namespace tune::fuzz
