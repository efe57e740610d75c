// Reads the safetensors format (8-byte little-endian header size, JSON header, raw tensor bytes),
// as Hugging Face saves model.safetensors. fp32, fp16, bf16 and integer tensors are supported.
#pragma once
#include <torch/torch.h>

#include <map>
#include <string>

namespace tune {

// Returns every tensor by name (CPU, in the file's dtype). Throws std::invalid_argument naming the
// file and what is wrong (truncated, bad header, unknown dtype, out-of-range offsets).
std::map<std::string, torch::Tensor> read_safetensors(const std::string& path);

// Writes tensors (contiguous CPU copies) in the same format; tests use it to make checkpoints.
void write_safetensors(const std::string& path, const std::map<std::string, torch::Tensor>& tensors);

}  // namespace tune
