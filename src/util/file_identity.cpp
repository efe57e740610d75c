// File identity by std::filesystem metadata: cheap (no read of a multi-gigabyte checkpoint), and it changes when a
// file is rewritten, which is when an earlier measurement stops describing it.
#include "util/file_identity.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string_view>
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

namespace {

uint64_t hash_file_content(uint64_t h, const std::string& file) {
  h = stable_hash_update(h, fs::path(file).filename().string() + '\0' + std::to_string(fs::file_size(file)) + '\0');
  std::ifstream in(file, std::ios::binary);
  std::string chunk(1 << 20, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
    h = stable_hash_update(h, std::string_view(chunk.data(), static_cast<size_t>(in.gcount())));
  return h;
}

// Continues h over `path` with `hash_file`: a file, each regular file of a folder by name, or a missing path's name.
uint64_t hash_path_with(uint64_t h, const std::string& path, uint64_t (*hash_file)(uint64_t, const std::string&)) {
  std::error_code error;
  if (path.empty() || !fs::exists(path, error)) return stable_hash_update(h, path + '\0');
  if (fs::is_regular_file(path)) return hash_file(h, path);
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path))
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) h = hash_file(h, file);
  return h;
}

}  // namespace

uint64_t hash_path_identity(uint64_t h, const std::string& path) { return hash_path_with(h, path, hash_file_identity); }

uint64_t hash_path_content(uint64_t h, const std::string& path) { return hash_path_with(h, path, hash_file_content); }

}  // namespace tune
