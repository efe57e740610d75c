// A trial's batches as one pickle for the Python worker: field names are the Hugging Face forward's argument
// names, so the worker passes each batch as keyword arguments.
#include "trial/batch_dump.h"

#include <torch/torch.h>

#include <fstream>
#include <stdexcept>

namespace tune {
namespace {

c10::Dict<std::string, at::Tensor> batch_dict(const Batch& b) {
  c10::Dict<std::string, at::Tensor> fields;
  const std::pair<const char*, const torch::Tensor*> named[] = {{"input_ids", &b.input_ids},
      {"token_type_ids", &b.token_type_ids}, {"attention_mask", &b.attention_mask}, {"labels", &b.labels},
      {"decoder_input_ids", &b.decoder_input_ids}};
  for (const auto& [name, tensor] : named)
    if (tensor->defined()) fields.insert(name, tensor->contiguous());
  return fields;
}

}  // namespace

void dump_batches(const std::vector<Batch>& batches, const std::string& path) {
  c10::List<c10::Dict<std::string, at::Tensor>> list;
  for (const auto& b : batches) list.push_back(batch_dict(b));
  const std::vector<char> bytes = torch::pickle_save(list);
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write batches to '" + path + "'");
}

}  // namespace tune
