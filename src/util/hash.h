// A stable 64-bit FNV-1a hash printed as hex: store keys must not change between builds or runs,
// which std::hash does not promise.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace tune {

constexpr uint64_t kStableHashSeed = 1469598103934665603ULL;

// Continues a hash over more text: stable_hash_update(stable_hash_update(kStableHashSeed, a), b) is the
// hash of a + b, without building that string (a corpus is megabytes).
inline uint64_t stable_hash_update(uint64_t h, std::string_view text) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

inline uint64_t stable_hash_value(const std::string& text) { return stable_hash_update(kStableHashSeed, text); }

inline std::string stable_hash_hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

inline std::string stable_hash(const std::string& text) { return stable_hash_hex(stable_hash_value(text)); }

}  // namespace tune
