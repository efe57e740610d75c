// Loads HF safetensors checkpoints by parameter name, failing clearly on a missing or mis-shaped
// tensor. Copies happen under NoGradGuard so the parameters stay leaves of the autograd graph.
#include "models/hf_weights.h"

#include <filesystem>
#include <stdexcept>

#include "models/safetensors.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

std::string checkpoint_file(const std::string& checkpoint) {
  const fs::path p(checkpoint);
  if (fs::is_directory(p)) {
    if (fs::exists(p / "model.safetensors")) return (p / "model.safetensors").string();
    throw std::invalid_argument("weights folder '" + checkpoint + "' has no model.safetensors");
  }
  if (!fs::exists(p)) throw std::invalid_argument("weights '" + checkpoint + "' do not exist");
  return checkpoint;
}

std::string shape_text(const torch::Tensor& t) { return c10::str(t.sizes()); }

bool ends_with_any(const std::string& name, const std::vector<std::string>& suffixes) {
  for (const auto& s : suffixes)
    if (name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) return true;
  return false;
}

}  // namespace

WeightLoadReport load_hf_weights(torch::nn::Module& module, const std::string& checkpoint,
                                 const std::vector<std::string>& ignored_suffixes) {
  const std::string file = checkpoint_file(checkpoint);
  auto tensors = read_safetensors(file);
  WeightLoadReport report;
  torch::NoGradGuard no_grad;
  for (auto& param : module.named_parameters()) {
    const auto it = tensors.find(param.key());
    if (it == tensors.end())
      throw std::invalid_argument(file + ": missing tensor '" + param.key() + "' (shape " + shape_text(param.value()) + ")");
    if (it->second.sizes() != param.value().sizes())
      throw std::invalid_argument(file + ": tensor '" + param.key() + "' has shape " + shape_text(it->second) +
                                  ", expected " + shape_text(param.value()));
    param.value().copy_(it->second.to(param.value().scalar_type()));
    tensors.erase(it);
    ++report.loaded;
  }
  for (const auto& [name, t] : tensors) {
    if (!ends_with_any(name, ignored_suffixes))
      std::fprintf(stderr, "tune: warning: %s: tensor '%s' is not a parameter of this model; ignored\n", file.c_str(),
                   name.c_str());
    report.skipped.push_back(name);
  }
  return report;
}

}  // namespace tune
