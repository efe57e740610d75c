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

// Continues hash h over what `path` holds, so that a store compares it across machines, clones and rewrites: each
// regular file's name (without its folder), size and bytes, by name (a file: that one; a missing path: the path
// only). Equal files at another path or with another modification time hash alike. Reads every byte: a
// multi-gigabyte checkpoint takes seconds, so a caller checks for changes with hash_path_identity.
uint64_t hash_path_content(uint64_t h, const std::string& path);

}  // namespace tune
