// safetensors reader and writer: the header is JSON (nlohmann), the data a flat byte buffer.
// Every malformed input is a user error that names the file, never a crash.
#include "models/safetensors.h"

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

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

torch::ScalarType dtype_of(const std::string& name, const std::string& file) {
  for (const auto& d : kDtypes)
    if (name == d.name) return d.type;
  throw std::invalid_argument(file + ": unsupported safetensors dtype '" + name + "'");
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

torch::Tensor tensor_from(const nlohmann::json& info, const char* data, size_t data_size, const std::string& where) {
  const auto dtype = dtype_of(info.at("dtype").get<std::string>(), where);
  const auto shape = info.at("shape").get<std::vector<int64_t>>();
  const auto offsets = info.at("data_offsets").get<std::vector<size_t>>();
  const int64_t numel = c10::multiply_integers(shape);
  if (offsets.size() != 2 || offsets[1] > data_size || offsets[0] > offsets[1] ||
      offsets[1] - offsets[0] != static_cast<size_t>(numel) * c10::elementSize(dtype))
    throw std::invalid_argument(where + ": data_offsets do not match its dtype and shape");
  auto t = torch::empty(shape, torch::TensorOptions().dtype(dtype));
  std::memcpy(t.data_ptr(), data + offsets[0], offsets[1] - offsets[0]);
  return t;
}

}  // namespace

std::map<std::string, torch::Tensor> read_safetensors(const std::string& path) {
  const auto bytes = read_bytes(path);
  uint64_t header_size = 0;
  if (bytes.size() < 8) throw std::invalid_argument(path + ": not a safetensors file (shorter than 8 bytes)");
  std::memcpy(&header_size, bytes.data(), 8);  // little-endian, as every supported host
  if (header_size > bytes.size() - 8) throw std::invalid_argument(path + ": not a safetensors file (header size out of range)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header_size));
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(path + ": safetensors header is not valid JSON: " + e.what());
  }
  const char* data = bytes.data() + 8 + header_size;
  const size_t data_size = bytes.size() - 8 - header_size;
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") continue;
    try {
      tensors[name] = tensor_from(info, data, data_size, path + ": tensor '" + name + "'");
    } catch (const nlohmann::json::exception& e) {
      throw std::invalid_argument(path + ": tensor '" + name + "' has a malformed header entry: " + e.what());
    }
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
