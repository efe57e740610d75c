// The safetensors header (8-byte little-endian size, then JSON: name -> dtype, shape, data_offsets), parsed and
// checked without libtorch, so the bytes from outside are validated in one torch-free place (and fuzzed).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tune {

struct SafetensorsEntry {
  std::string name;
  std::string dtype;           // "F32", "BF16", ... (safetensors_element_size knows it)
  std::vector<int64_t> shape;
  size_t begin = 0, end = 0;   // byte offsets into the data that follows the header
};

struct SafetensorsHeader {
  size_t data_start = 0;       // 8 + the header's size
  std::vector<SafetensorsEntry> entries;  // by name, __metadata__ left out
};

// Bytes per element of a safetensors dtype name; 0 for a name tune does not read.
size_t safetensors_element_size(const std::string& dtype);

// Parses the header of a safetensors file's `size` bytes and checks every entry against the data after it: a
// known dtype, a shape of non-negative sizes whose element count does not overflow, and offsets inside the data
// spanning exactly count x element size. Throws std::invalid_argument naming `file` and the entry.
SafetensorsHeader parse_safetensors_header(const char* bytes, size_t size, const std::string& file);

}  // namespace tune
