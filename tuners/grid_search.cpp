// Grid search: batch-major over the grid, each point asked once, in order.
// It ends when every point was told (the registry's trial cap may end it sooner).
#include "tuners/grid_search.h"

#include "util/table_format.h"

namespace tune {
namespace {

std::vector<int> grid_batches(const TunerSpace& space) {
  const int step = static_cast<int>(space.option("batch_step", 0));
  if (step <= 0) return power_of_two_batches(space);
  std::vector<int> sizes;
  for (int b = step; b <= space.max_batch_size; b += step)
    if (b >= space.min_batch_size) sizes.push_back(b);
  if (sizes.empty()) sizes.push_back(space.min_batch_size);
  return sizes;
}

}  // namespace

GridSearch::GridSearch(const TunerSpace& space) : objective_(space.objective) {
  // Throughput does not depend on the learning rate: the batch stage trains at the reference rate only.
  const auto rates = space.objective == StageObjective::throughput
                         ? std::vector<double>{space.reference_learning_rate}
                         : learning_rate_list(space, static_cast<int>(space.option("lr_points", 7)));
  for (int batch : grid_batches(space))
    for (double lr : rates) points_.push_back(Candidate{batch, lr, space.train_steps});
}

std::optional<Candidate> GridSearch::ask() {
  if (next_ < points_.size()) return points_[next_];
  stop_reason_ = strf("all %zu grid points tried", points_.size());
  return std::nullopt;
}

void GridSearch::tell(const Candidate& candidate, const TrialResult& result) {
  told_.emplace_back(candidate, result);
  ++next_;
}

std::optional<std::pair<Candidate, TrialResult>> GridSearch::best() const { return best_trial(told_, objective_); }

}  // namespace tune
