// Finds python and the worker script, and spells a Python-worker trial's commands. Torch-free: the trial
// process (tune_core) starts these; only the batch dump itself needs libtorch, in its own process.
#include "trial/python_trial.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "util/paths.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

// The first executable `name` in the PATH folders, or empty.
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream folders(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');) {
    const fs::path candidate = fs::path(folder.empty() ? "." : folder) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

}  // namespace

std::string python_executable() {
  if (const char* python = std::getenv("TUNE_PYTHON"); python && *python) {
    const std::string found = std::string(python).find('/') == std::string::npos ? find_on_path(python) : python;
    if (found.empty() || access(found.c_str(), X_OK) != 0)
      throw std::runtime_error("TUNE_PYTHON '" + std::string(python) + "' is not an executable python");
    return found;
  }
  const std::string found = find_on_path("python3");
  if (found.empty())
    throw std::runtime_error("no python3 on PATH for the Python trial worker (set TUNE_PYTHON, or run scripts/setup)");
  return found;
}

std::string python_worker_script() {
  const fs::path script = fs::path(tune_home()) / "src" / "compile" / "inductor_trial.py";
  if (!fs::exists(script))
    throw std::runtime_error("Python trial worker '" + script.string() + "' not found (TUNE_HOME: " + tune_home() + ")");
  return script.string();
}

std::vector<std::vector<std::string>> python_trial_commands(const std::string& tune_executable, const TrialFiles& f) {
  return {{tune_executable, "trial", "--spec", f.spec, "--dump-batches", f.batches, "--out", f.result},
          {python_executable(), python_worker_script(), "--spec", f.spec, "--batches", f.batches, "--out", f.result}};
}

}  // namespace tune
