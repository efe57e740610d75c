// The held-out split and its batches (data/held_out.h). The split is drawn once per dataset with its own seed, so
// it does not move with a trial's seed: two seeds of one rate, and every rate, are scored on the same rows.
#include "data/held_out.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "data/classification_batcher.h"

namespace tune {

std::vector<LabelledExample> split_held_out(std::vector<LabelledExample>& examples, double share) {
  if (!(share >= 0 && share < 1))
    throw std::invalid_argument("held-out share " + std::to_string(share) + ": expected at least 0 and below 1");
  const size_t count = std::min(kMaxHeldOutRows, static_cast<size_t>(std::floor(share * examples.size())));
  if (count < kMinHeldOutRows || count >= examples.size()) return {};
  std::vector<size_t> order(examples.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(kHeldOutSeed);
  // A Fisher-Yates shuffle written out: std::shuffle's draws differ between standard libraries, and the split
  // must be the same rows on every machine a study's trials run on.
  for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);
  std::vector<bool> held(examples.size(), false);
  for (size_t i = 0; i < count; ++i) held[order[i]] = true;
  std::vector<LabelledExample> kept, held_out;
  for (size_t i = 0; i < examples.size(); ++i) (held[i] ? held_out : kept).push_back(std::move(examples[i]));
  examples = std::move(kept);
  return held_out;
}

std::vector<Batch> held_out_batches(const std::vector<LabelledExample>& rows, const ModelConfig& model, int seq_len,
                                    int batch_size) {
  std::vector<Batch> batches;
  for (size_t start = 0; start < rows.size(); start += static_cast<size_t>(batch_size)) {
    const auto end = rows.begin() + static_cast<std::ptrdiff_t>(std::min(rows.size(), start + batch_size));
    batches.push_back(classification_batch({rows.begin() + static_cast<std::ptrdiff_t>(start), end}, model, seq_len));
  }
  return batches;
}

double label_entropy(const std::vector<int64_t>& labels) {
  std::map<int64_t, double> counts;
  for (int64_t label : labels) counts[label] += 1;
  double entropy = 0;
  for (const auto& entry : counts) {
    const double p = entry.second / static_cast<double>(labels.size());
    entropy -= p * std::log(p);
  }
  return entropy;
}

}  // namespace tune
