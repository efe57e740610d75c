// Reads HF checkpoints (safetensors, sharded or not; pytorch_model.bin through torch's restricted unpickler) and
// copies them into parameters by name, under NoGradGuard so the parameters stay leaves of the autograd graph.
#include "models/hf_weights.h"

#include <torch/serialize.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "models/safetensors.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

constexpr const char* kConvert =
    "; convert it to safetensors (python: transformers.AutoModel.from_pretrained(DIR).save_pretrained(DIR, "
    "safe_serialization=True)), or give a folder with model.safetensors";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::map<std::string, torch::Tensor> read_pytorch_bin(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::invalid_argument("weights '" + file + "' cannot be read");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  c10::IValue value;
  try {
    value = torch::pickle_load(bytes);
  } catch (const std::exception& e) {
    const std::string why = e.what();
    throw std::invalid_argument("weights '" + file + "' cannot be read by torch's C++ unpickler, which runs no code (" +
                                why.substr(0, why.find('\n')).substr(0, 160) + ")" + kConvert);
  }
  if (!value.isGenericDict()) throw std::invalid_argument("weights '" + file + "' do not hold a state_dict" + kConvert);
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString() || !entry.value().isTensor())
      throw std::invalid_argument("weights '" + file + "': an entry is not a named tensor" + kConvert);
    tensors[entry.key().toStringRef()] = entry.value().toTensor();
  }
  return tensors;
}

std::map<std::string, torch::Tensor> read_weights_file(const std::string& file) {
  if (!fs::is_regular_file(file)) throw std::invalid_argument("weights '" + file + "' do not exist");
  if (ends_with(file, ".bin")) return read_pytorch_bin(file);
  return read_safetensors(file);
}

// model.safetensors.index.json: {"weight_map": {tensor: shard file}}; every listed tensor must be in its shard.
std::map<std::string, torch::Tensor> read_sharded(const fs::path& index_file) {
  std::ifstream in(index_file);
  nlohmann::json index;
  try {
    index = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("'" + index_file.string() + "' is not valid JSON: " + e.what());
  }
  if (!index.contains("weight_map") || !index["weight_map"].is_object())
    throw std::invalid_argument("'" + index_file.string() + "' has no weight_map object of tensor -> shard file");
  std::set<std::string> shards;
  for (const auto& [name, shard] : index["weight_map"].items()) {
    if (!shard.is_string()) throw std::invalid_argument("'" + index_file.string() + "': shard of '" + name + "' is not a file name");
    shards.insert(shard.get<std::string>());
  }
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& shard : shards) tensors.merge(read_weights_file((index_file.parent_path() / shard).string()));
  for (const auto& [name, shard] : index["weight_map"].items())
    if (!tensors.count(name))
      throw std::invalid_argument("'" + index_file.string() + "' puts '" + name + "' in " + shard.get<std::string>() +
                                  ", which does not hold it");
  return tensors;
}

std::string shape_text(const torch::Tensor& t) { return c10::str(t.sizes()); }

bool ends_with_any(const std::string& name, const std::vector<std::string>& suffixes) {
  for (const auto& s : suffixes)
    if (ends_with(name, s)) return true;
  return false;
}

// The checkpoint entry for a parameter: its own name, else without the base prefix, else with it.
std::map<std::string, torch::Tensor>::iterator find_tensor(std::map<std::string, torch::Tensor>& tensors,
                                                           const std::string& name, const std::string& prefix) {
  auto it = tensors.find(name);
  if (it != tensors.end() || prefix.empty()) return it;
  if (name.rfind(prefix + ".", 0) == 0) it = tensors.find(name.substr(prefix.size() + 1));
  return it != tensors.end() ? it : tensors.find(prefix + "." + name);
}

void warn_unused(const std::string& checkpoint, const std::vector<std::string>& unused) {
  if (unused.empty()) return;
  std::string shown;
  for (size_t i = 0; i < unused.size() && i < 8; ++i) shown += (i ? ", " : "") + unused[i];
  std::fprintf(stderr, "tune: warning: %s: %zu tensors are not parameters of this model and were not used: %s%s\n",
               checkpoint.c_str(), unused.size(), shown.c_str(), unused.size() > 8 ? ", ..." : "");
}

// A parameter a checkpoint may lack, kept as initialised as from_pretrained does: a head's (outside the base
// model), or the base model's pooler, which the masked-LM classes drop (BertForMaskedLM saves its BertModel
// without one: add_pooling_layer=False) and a classifier's head reads.
bool initialised_when_missing(const std::string& key, const std::string& base_prefix) {
  if (base_prefix.empty()) return false;
  return key.rfind(base_prefix + ".", 0) != 0 || key.rfind(base_prefix + ".pooler.", 0) == 0;
}

}  // namespace

std::string hf_base_prefix(const std::string& family) {
  if (family == "gpt2") return "transformer";
  if (family == "t5") return "";
  return family;  // bert, roberta (XLM-R's too), distilbert
}

std::map<std::string, torch::Tensor> read_checkpoint(const std::string& checkpoint) {
  const fs::path p(checkpoint);
  if (!fs::is_directory(p)) return read_weights_file(checkpoint);
  if (fs::exists(p / "model.safetensors")) return read_weights_file((p / "model.safetensors").string());
  if (fs::exists(p / "model.safetensors.index.json")) return read_sharded(p / "model.safetensors.index.json");
  if (fs::exists(p / "pytorch_model.bin")) return read_weights_file((p / "pytorch_model.bin").string());
  if (fs::exists(p / "pytorch_model.bin.index.json")) return read_sharded(p / "pytorch_model.bin.index.json");
  throw std::invalid_argument("weights folder '" + checkpoint + "' has no model.safetensors, "
                              "model.safetensors.index.json or pytorch_model.bin");
}

WeightLoadReport load_hf_weights(torch::nn::Module& module, const std::string& checkpoint,
                                 const std::vector<std::string>& ignored_suffixes, const std::string& base_prefix) {
  auto tensors = read_checkpoint(checkpoint);
  WeightLoadReport report;
  torch::NoGradGuard no_grad;
  for (auto& param : module.named_parameters()) {
    const auto it = find_tensor(tensors, param.key(), base_prefix);
    if (it == tensors.end() && initialised_when_missing(param.key(), base_prefix)) {
      report.initialised.push_back(param.key());
      continue;
    }
    if (it == tensors.end())
      throw std::invalid_argument(checkpoint + ": missing tensor '" + param.key() + "' (shape " +
                                  shape_text(param.value()) + ")");
    if (it->second.sizes() != param.value().sizes())
      throw std::invalid_argument(checkpoint + ": tensor '" + it->first + "' has shape " + shape_text(it->second) +
                                  ", expected " + shape_text(param.value()));
    param.value().copy_(it->second.to(param.value().scalar_type()));
    tensors.erase(it);
    ++report.loaded;
  }
  std::vector<std::string> unused;
  for (const auto& [name, t] : tensors) {
    if (!ends_with_any(name, ignored_suffixes)) unused.push_back(name);
    report.skipped.push_back(name);
  }
  warn_unused(checkpoint, unused);
  return report;
}

}  // namespace tune
