// Writes a trial's batches to a file Python's torch.load reads, so a Python trial worker (the inductor and
// hf-eager backends) trains on exactly the batches the libtorch backends train on.
#pragma once
#include <string>

#include "trial/trial_spec.h"

namespace tune {

// Pickles (torch::pickle_save) a tuple: the batches as a list of {HF argument name: tensor} (defined fields
// only), the training FLOPs per step, and the data description. Returns the number of batches.
// Throws std::invalid_argument for bad data settings (as a trial would) and std::runtime_error on a write error.
int dump_trial_batches(const TrialSpec& spec, const std::string& path);

}  // namespace tune
