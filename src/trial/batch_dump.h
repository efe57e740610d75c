// Writes a trial's batches to a file Python's torch.load reads, so the Python trial worker (the inductor and
// hf-eager backends) trains on exactly the batches the libtorch backends train on.
#pragma once
#include <string>
#include <vector>

#include "common/batch.h"

namespace tune {

// Pickles (torch::pickle_save) the batches as a list of {HF argument name: tensor} (defined fields only).
// Throws std::runtime_error naming the path on a write error.
void dump_batches(const std::vector<Batch>& batches, const std::string& path);

}  // namespace tune
