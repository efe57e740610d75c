// Loads a Hugging Face checkpoint (a folder with model.safetensors, or the file itself) into a model
// whose parameter names follow HF's state_dict. Tied duplicates and HF buffers are skipped by name.
#pragma once
#include <torch/torch.h>

#include <string>
#include <vector>

namespace tune {

struct WeightLoadReport {
  int loaded = 0;
  std::vector<std::string> skipped;  // in the file, not a parameter here (tied copies, buffers)
};

// Copies every parameter of `module` from the checkpoint, converting dtype. `ignored_suffixes` names
// checkpoint entries that are expected extras (e.g. "attn.bias", "position_ids", a tied decoder).
// Throws std::invalid_argument naming the tensor when one is missing or has another shape.
WeightLoadReport load_hf_weights(torch::nn::Module& module, const std::string& checkpoint,
                                 const std::vector<std::string>& ignored_suffixes = {});

}  // namespace tune
