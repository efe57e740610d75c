// Runs the built `tune` binary as a user would (TUNE_EXECUTABLE, set by CMake) and captures its exit code
// and output; shared by the end-to-end CLI tests.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace tune::testing {

struct CliRun {
  int exit_code;
  std::string output;  // stdout and stderr together
};

inline CliRun tune_cli(const std::string& args) {
  const std::string cmd = std::string(TUNE_EXECUTABLE) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace tune::testing
