// Grid search: batch-major over the grid, each point asked once, in order.
// It ends when every point was told (the registry's trial cap may end it sooner).
#include "tuners/grid_search.h"

#include "util/table_format.h"

namespace tune {
namespace {

std::vector<int> grid_batches(const TunerSpace& space) {
  const int step = static_cast<int>(GridSearch::options().value(space, "batch_step"));
  if (step <= 0) return power_of_two_batches(space);
  std::vector<int> sizes;
  for (int b = step; b <= space.max_batch_size; b += step)
    if (b >= space.min_batch_size) sizes.push_back(b);
  if (sizes.empty()) sizes.push_back(space.min_batch_size);
  return sizes;
}

}  // namespace

const OptionList& GridSearch::options() {
  static const OptionList list{{
      {"lr_points", 7, "learning rates log-spaced over the range when the space has no explicit list"},
      {"batch_step", 0, "0: powers of two in the batch range; n > 0: every multiple of n in the range"},
  }};
  return list;
}

GridSearch::GridSearch(const TunerSpace& space) : Tuner(space.objective, space.max_trials) {
  // Throughput does not depend on the learning rate: the batch stage trains at the reference rate only.
  const auto rates = space.objective == StageObjective::throughput
                         ? std::vector<double>{space.reference_learning_rate}
                         : learning_rate_list(space, static_cast<int>(options().value(space, "lr_points")));
  for (int batch : grid_batches(space))
    for (double lr : rates) points_.push_back(Candidate{batch, lr, space.train_steps});
}

std::optional<Candidate> GridSearch::propose() {
  if (told().size() < points_.size()) return points_[told().size()];
  stop_reason_ = strf("all %zu grid points tried", points_.size());
  return std::nullopt;
}

}  // namespace tune
