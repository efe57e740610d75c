// Where a trial's batches come from: one source per task (masked LM, causal LM, span corruption,
// sequence classification), all seeded and deterministic so every backend sees the same batches.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "common/batch.h"
#include "common/model_config.h"

namespace tune {

struct LabelledExample {
  std::vector<int64_t> ids;  // tokenized text, no special tokens
  int label = 0;
};

// What batch sources cut batches from: a token stream (language-model tasks) or labelled examples.
struct TrainingData {
  std::vector<int64_t> stream;            // empty: synthetic ids (throughput-only trials)
  std::vector<LabelledExample> examples;  // sequence classification
  std::vector<LabelledExample> held_out;  // ... set aside from examples, never trained on (data/held_out.h)
};

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  virtual Batch next() = 0;
};

// The source for model.task. Throws std::invalid_argument for an unknown task or a bad shape.
std::unique_ptr<BatchSource> make_batch_source(const ModelConfig& model, TrainingData data, int seq_len,
                                               int batch_size, uint64_t seed);

}  // namespace tune
