// safetensors header validation: nlohmann::json for the JSON, checked arithmetic for the sizes, so that a hostile
// or truncated file is a user error naming the file, never an overflow, a huge allocation or a crash.
#include "models/safetensors_header.h"

#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>

namespace tune {
namespace {

struct DtypeSize {
  const char* name;
  size_t bytes;
};
constexpr DtypeSize kDtypeSizes[] = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
                                     {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};

// count x element size in bytes, or throws when a size is negative or the product overflows.
size_t checked_bytes(const std::vector<int64_t>& shape, size_t element_size, const std::string& where) {
  size_t bytes = element_size;
  for (const int64_t dim : shape) {
    if (dim < 0) throw std::invalid_argument(where + ": negative size " + std::to_string(dim) + " in its shape");
    if (dim != 0 && bytes > std::numeric_limits<size_t>::max() / static_cast<size_t>(dim))
      throw std::invalid_argument(where + ": its shape holds more bytes than can be addressed");
    bytes *= static_cast<size_t>(dim);
  }
  return bytes;
}

// info[key] as integers: a float or a string there is a malformed file, never a cast (a float past the integer
// range converted to one is undefined behaviour; the fuzzer found one in "shape").
template <typename Integer>
std::vector<Integer> integer_list(const nlohmann::json& info, const char* key, const std::string& where) {
  const nlohmann::json& list = info.at(key);
  if (!list.is_array()) throw std::invalid_argument(where + ": '" + key + "' is not a list");
  std::vector<Integer> values;
  for (const nlohmann::json& v : list) {
    if (!v.is_number_integer() || (std::is_unsigned<Integer>::value && !v.is_number_unsigned()))
      throw std::invalid_argument(where + ": '" + key + "' holds " + v.dump() + ", expected a whole number" +
                                  (std::is_unsigned<Integer>::value ? " of at least 0" : ""));
    values.push_back(v.get<Integer>());
  }
  return values;
}

SafetensorsEntry entry_from(const std::string& name, const nlohmann::json& info, size_t data_size,
                            const std::string& where) {
  SafetensorsEntry e;
  e.name = name;
  e.dtype = info.at("dtype").get<std::string>();
  const size_t element_size = safetensors_element_size(e.dtype);
  if (element_size == 0) throw std::invalid_argument(where + ": unsupported safetensors dtype '" + e.dtype + "'");
  e.shape = integer_list<int64_t>(info, "shape", where);
  const auto offsets = integer_list<size_t>(info, "data_offsets", where);
  const size_t bytes = checked_bytes(e.shape, element_size, where);
  if (offsets.size() != 2 || offsets[1] > data_size || offsets[0] > offsets[1] || offsets[1] - offsets[0] != bytes)
    throw std::invalid_argument(where + ": data_offsets do not match its dtype and shape");
  e.begin = offsets[0], e.end = offsets[1];
  return e;
}

}  // namespace

size_t safetensors_element_size(const std::string& dtype) {
  for (const auto& d : kDtypeSizes)
    if (dtype == d.name) return d.bytes;
  return 0;
}

SafetensorsHeader parse_safetensors_header(const char* bytes, size_t size, const std::string& file) {
  if (size < 8) throw std::invalid_argument(file + ": not a safetensors file (shorter than 8 bytes)");
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes, 8);  // little-endian, as every supported host
  if (header_size > size - 8) throw std::invalid_argument(file + ": not a safetensors file (header size out of range)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes + 8, bytes + 8 + header_size);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(file + ": safetensors header is not valid JSON: " + e.what());
  }
  if (!header.is_object()) throw std::invalid_argument(file + ": safetensors header is not a JSON object");
  SafetensorsHeader out;
  out.data_start = 8 + static_cast<size_t>(header_size);
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string where = file + ": tensor '" + name + "'";
    try {
      out.entries.push_back(entry_from(name, info, size - out.data_start, where));
    } catch (const nlohmann::json::exception& e) {
      throw std::invalid_argument(where + " has a malformed header entry: " + e.what());
    }
  }
  return out;
}

}  // namespace tune
