// Where tune finds its own files (tested_models/, configs/) and where it writes (database, trial folders).
// Resolution is by environment first so that an installed binary can be pointed at its data.
#include "util/paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace fs = std::filesystem;

namespace tune {

std::string tune_home() {
  if (const char* home = std::getenv("TUNE_HOME"); home && *home) return home;
  return TUNE_SOURCE_DIR;
}

std::string tested_models_dir() { return (fs::path(tune_home()) / "tested_models").string(); }
std::string configs_dir() { return (fs::path(tune_home()) / "configs").string(); }

std::string self_executable() {
  std::error_code ec;
  const auto path = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the tune executable via /proc/self/exe: " + ec.message());
  return path.string();
}

std::string default_database_path() {
  if (const char* db = std::getenv("TUNE_DB"); db && *db) return db;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
    const fs::path dir = fs::path(xdg) / "tune";
    fs::create_directories(dir);
    return (dir / "tune.db").string();
  }
  return "tune.db";
}

std::string runs_dir_for_database(const std::string& db_path) {
  const fs::path db(db_path);
  return (db.parent_path() / (db.stem().string() + "-runs")).string();
}

std::string file_name_part(std::string text) {
  for (char& c : text)
    if (c == '/' || c == ' ') c = '_';
  return text;
}

}  // namespace tune
