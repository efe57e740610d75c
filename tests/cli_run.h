// Runs a shell command, or the built `tune` binary as a user would (TUNE_EXECUTABLE, set by CMake for the torch
// tests), and captures its exit code and output; shared by the tests that run a program.
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

// The command's standard output (add 2>&1 for its errors too) and exit code (-1: it did not exit).
inline CliRun run_command(const std::string& cmd) {
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return {-1, ""};
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

#ifdef TUNE_EXECUTABLE
inline CliRun tune_cli(const std::string& args) {
  return run_command(std::string(TUNE_EXECUTABLE) + " " + args + " 2>&1");
}
#endif

}  // namespace tune::testing
