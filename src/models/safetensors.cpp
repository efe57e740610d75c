// safetensors reader and writer: the header is JSON (nlohmann), the data a flat byte buffer.
// Every malformed input is a user error that names the file, never a crash.
#include "models/safetensors.h"

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/safetensors_header.h"
#include "util/check.h"

namespace tune {
namespace {

struct DtypeName {
  const char* name;
  torch::ScalarType type;
};
constexpr DtypeName kDtypes[] = {{"F32", torch::kFloat32}, {"F16", torch::kFloat16}, {"BF16", torch::kBFloat16},
                                 {"F64", torch::kFloat64}, {"I64", torch::kInt64},   {"I32", torch::kInt32},
                                 {"I16", torch::kInt16},   {"I8", torch::kInt8},     {"U8", torch::kUInt8},
                                 {"BOOL", torch::kBool}};

// The torch type of a dtype name parse_safetensors_header accepted (it knows the same names).
torch::ScalarType dtype_of(const std::string& name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return d.type;
  TUNE_CHECK(false, "a dtype the safetensors header accepted has no torch type");
  return torch::kFloat32;
}

const char* name_of(torch::ScalarType type) {
  for (const auto& d : kDtypes)
    if (type == d.type) return d.name;
  throw std::invalid_argument(std::string("cannot write dtype ") + c10::toString(type) + " to safetensors");
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::invalid_argument("weights file '" + path + "' cannot be read");
  std::vector<char> bytes(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

}  // namespace

std::map<std::string, torch::Tensor> read_safetensors(const std::string& path) {
  const auto bytes = read_bytes(path);
  const SafetensorsHeader header = parse_safetensors_header(bytes.data(), bytes.size(), path);
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& e : header.entries) {
    auto t = torch::empty(e.shape, torch::TensorOptions().dtype(dtype_of(e.dtype)));
    std::memcpy(t.data_ptr(), bytes.data() + header.data_start + e.begin, e.end - e.begin);
    tensors[e.name] = t;
  }
  return tensors;
}

void write_safetensors(const std::string& path, const std::map<std::string, torch::Tensor>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  std::vector<torch::Tensor> ordered;
  size_t offset = 0;
  for (const auto& [name, t] : tensors) {
    auto c = t.detach().to(torch::kCPU).contiguous();
    const size_t size = static_cast<size_t>(c.numel()) * c.element_size();
    header[name] = {{"dtype", name_of(c.scalar_type())}, {"shape", c.sizes().vec()}, {"data_offsets", {offset, offset + size}}};
    offset += size;
    ordered.push_back(c);
  }
  const std::string text = header.dump();
  const uint64_t header_size = text.size();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&header_size), 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const auto& c : ordered) out.write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(c.numel() * c.element_size()));
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace tune
