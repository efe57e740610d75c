// Loads a Hugging Face checkpoint (a folder as save_pretrained writes it, or one weights file) into a model whose
// parameter names follow HF's state_dict, as from_pretrained does: with or without the head class's prefix.
#pragma once
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

namespace tune {

struct WeightLoadReport {
  int loaded = 0;
  std::vector<std::string> initialised;  // head parameters the checkpoint lacks: kept as initialised
  std::vector<std::string> skipped;      // in the checkpoint, not a parameter here (tied copies, buffers, other heads)
};

// Every tensor of a checkpoint: a folder (model.safetensors, model.safetensors.index.json for shards,
// pytorch_model.bin[.index.json]) or one .safetensors / .bin file. A .bin is read by torch's C++ unpickler, which
// rebuilds tensors and containers only and runs no code; one it cannot read (HF's own .bin state dicts among them:
// an OrderedDict with metadata) is an error that says how to convert it.
// Throws std::invalid_argument naming the file.
std::map<std::string, torch::Tensor> read_checkpoint(const std::string& checkpoint);

// HF's base_model_prefix for a family: the head classes' prefix of the shared tensors' names ("bert", "roberta",
// "distilbert", "transformer" for GPT-2; "" for T5, whose base and head classes name them alike).
std::string hf_base_prefix(const std::string& family);

// Copies every parameter of `module` from the checkpoint, converting dtype. A name is looked up as is, then
// without or with `base_prefix` + "." (a base-model checkpoint, or another head's). A missing parameter outside
// the base model (a head) keeps its initialisation and is reported; a missing base parameter or a shape mismatch
// throws std::invalid_argument naming the tensor. `ignored_suffixes` are expected extras (tied copies, buffers);
// other extras are warned about on stderr.
WeightLoadReport load_hf_weights(torch::nn::Module& module, const std::string& checkpoint,
                                 const std::vector<std::string>& ignored_suffixes = {},
                                 const std::string& base_prefix = "");

}  // namespace tune
