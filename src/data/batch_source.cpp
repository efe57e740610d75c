// Picks the batch source for a model's task. New tasks register here.
// Unknown tasks are a user error naming the model file and the tasks known.
#include "data/batch_source.h"

#include <stdexcept>

#include "data/causal_lm_batcher.h"
#include "data/classification_batcher.h"
#include "data/mlm_batcher.h"
#include "data/span_corruption_batcher.h"

namespace tune {

std::unique_ptr<BatchSource> make_batch_source(const ModelConfig& model, TrainingData data, int seq_len,
                                               int batch_size, uint64_t seed) {
  if (model.task == "masked_lm")
    return std::make_unique<MlmBatcher>(std::move(data.stream), model, seq_len, batch_size, seed);
  if (model.task == "causal_lm")
    return std::make_unique<CausalLmBatcher>(std::move(data.stream), model, seq_len, batch_size, seed);
  if (model.task == "span_corruption")
    return std::make_unique<SpanCorruptionBatcher>(std::move(data.stream), model, seq_len, batch_size, seed);
  if (model.task == "sequence_classification")
    return std::make_unique<ClassificationBatcher>(std::move(data.examples), model, seq_len, batch_size, seed);
  throw std::invalid_argument(model.source_path + ": task '" + model.task +
                              "' has no batch source (expected masked_lm, causal_lm, span_corruption or "
                              "sequence_classification)");
}

}  // namespace tune
