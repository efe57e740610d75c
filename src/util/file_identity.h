// A file's identity as make sees it (path, size, modification time), hashed: what the token cache and the trial
// store use to tell a file replaced at the same path from the one they measured.
#pragma once
#include <cstdint>
#include <string>

namespace tune {

// Continues hash h over the file's path, size and modification time.
uint64_t hash_file_identity(uint64_t h, const std::string& file);

// ...over each regular file of a folder, by name (a file: that file; a missing path: its name only).
uint64_t hash_path_identity(uint64_t h, const std::string& path);

}  // namespace tune
