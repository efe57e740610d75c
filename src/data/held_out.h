// The held-out rows of a labelled dataset: a share of its examples set aside before any batch is drawn, so a
// learning-rate trial can score the model it trained on rows it never saw (a training loss over the last steps
// is taken on different rows for every rate and, on a small dataset, on rows seen before).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/batch.h"
#include "common/model_config.h"
#include "data/batch_source.h"

namespace tune {

// At most this many rows are held out: enough to tell rates apart (an accuracy's standard error near 1.5 points),
// few enough to score in seconds.
constexpr size_t kMaxHeldOutRows = 1000;
// Fewer held-out rows than this score too noisily to rank rates on: the dataset is then trained on whole.
constexpr size_t kMinHeldOutRows = 32;
// The split's own seed: every trial of a study, whatever its seed, holds out the same rows.
constexpr uint64_t kHeldOutSeed = 0;

// Moves floor(share x examples) rows (at most kMaxHeldOutRows), drawn with kHeldOutSeed, from `examples` to the
// result, keeping both in their original order. Nothing moves when that is under kMinHeldOutRows or share is 0.
// Throws std::invalid_argument for a share outside [0, 1).
std::vector<LabelledExample> split_held_out(std::vector<LabelledExample>& examples, double share);

// The held-out rows as batches of up to batch_size rows, in order, shaped as the classification batcher shapes
// training rows ([CLS] ids [SEP], truncated or padded to seq_len).
std::vector<Batch> held_out_batches(const std::vector<LabelledExample>& rows, const ModelConfig& model, int seq_len,
                                    int batch_size);

// The entropy of the rows' label frequencies: what predicting them scores on these rows (trial_result.h).
double label_entropy(const std::vector<int64_t>& labels);

}  // namespace tune
