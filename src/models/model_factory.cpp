// Builds a trainable model from its config: the module (for parameters and devices) and its loss.
// One branch per family; the loss closure keeps the concrete module type out of the backends.
#include "models/model_factory.h"

#include <stdexcept>

#include "models/bert.h"

namespace tune {

TrainableModel build_model(const ModelConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  if (config.family == "bert") {
    auto bert = BertForMaskedLM(config);
    auto impl = bert.ptr();
    return {impl, [impl](const Batch& b) {
              return impl->loss(b.input_ids, b.token_type_ids, b.attention_mask, b.labels);
            }};
  }
  throw std::invalid_argument("model family '" + config.family + "' is not implemented (expected bert)");
}

int64_t parameter_count(const torch::nn::Module& module) {
  int64_t total = 0;
  for (const auto& p : module.parameters()) total += p.numel();
  return total;
}

}  // namespace tune
