// A stable 64-bit FNV-1a hash printed as hex: store keys must not change between builds or runs,
// which std::hash does not promise.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace tune {

inline uint64_t stable_hash_value(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

inline std::string stable_hash(const std::string& text) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(stable_hash_value(text)));
  return buf;
}

}  // namespace tune
