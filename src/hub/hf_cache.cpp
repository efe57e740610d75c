// Locates cached Hugging Face snapshots without huggingface_hub: the environment variables it honours, the
// models--ORG--NAME folder naming, and refs/main pointing at the snapshot's commit.
#include "hub/hf_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace tune {
namespace fs = std::filesystem;
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : "";
}

std::string repo_folder_name(const std::string& repo_id) {
  std::string name = "models--";
  for (const char c : repo_id) name += c == '/' ? std::string("--") : std::string(1, c);
  return name;
}

std::optional<fs::path> newest_snapshot(const fs::path& snapshots) {
  std::optional<fs::path> newest;
  fs::file_time_type newest_time{};
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(snapshots, ec)) {
    if (!fs::is_regular_file(entry.path() / "config.json")) continue;
    const auto time = fs::last_write_time(entry.path(), ec);
    if (!newest || time > newest_time) newest = entry.path(), newest_time = time;
  }
  return newest;
}

}  // namespace

std::string hf_hub_cache_dir() {
  if (!env("HF_HUB_CACHE").empty()) return env("HF_HUB_CACHE");
  if (!env("HUGGINGFACE_HUB_CACHE").empty()) return env("HUGGINGFACE_HUB_CACHE");  // the older name
  if (!env("HF_HOME").empty()) return (fs::path(env("HF_HOME")) / "hub").string();
  const std::string xdg = env("XDG_CACHE_HOME");
  const fs::path cache = xdg.empty() ? fs::path(env("HOME")) / ".cache" : fs::path(xdg);
  return (cache / "huggingface" / "hub").string();
}

std::optional<std::string> cached_snapshot(const std::string& repo_id) {
  if (repo_id.empty()) return std::nullopt;
  const fs::path repo = fs::path(hf_hub_cache_dir()) / repo_folder_name(repo_id);
  std::ifstream ref(repo / "refs" / "main");
  std::string commit;
  if (ref >> commit && fs::is_regular_file(repo / "snapshots" / commit / "config.json"))
    return (repo / "snapshots" / commit).string();
  const auto newest = newest_snapshot(repo / "snapshots");
  if (newest) return newest->string();
  return std::nullopt;
}

}  // namespace tune
