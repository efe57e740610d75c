// File identity by std::filesystem metadata: cheap (no read of a multi-gigabyte checkpoint), and it changes when a
// file is rewritten, which is when an earlier measurement stops describing it.
#include "util/file_identity.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include "util/hash.h"

namespace tune {

namespace fs = std::filesystem;

uint64_t hash_file_identity(uint64_t h, const std::string& file) {
  const auto mtime = fs::last_write_time(file).time_since_epoch();
  return stable_hash_update(h, file + '\0' + std::to_string(fs::file_size(file)) + '\0' +
                                   std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(mtime).count()) +
                                   '\0');
}

uint64_t hash_path_identity(uint64_t h, const std::string& path) {
  std::error_code error;
  if (path.empty() || !fs::exists(path, error)) return stable_hash_update(h, path + '\0');
  if (fs::is_regular_file(path)) return hash_file_identity(h, path);
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path))
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) h = hash_file_identity(h, file);
  return h;
}

}  // namespace tune
