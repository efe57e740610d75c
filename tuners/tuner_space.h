// The search space a registered strategy is built for: batch and learning-rate ranges, the scaling
// reference, the stage objective, trial and memory limits, the search settings strategies may read, and
// per-strategy options by name, each declared with its default by the strategy that reads it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tuners/objective.h"

namespace tune {

struct TunerSpace {
  // Batch sizes: powers of two within [min, max]. The learning-rate stage passes min = max = the
  // chosen batch; learning-rate-only strategies (lr_sweep, asha, gp) train at max_batch_size.
  int min_batch_size = 1;
  int max_batch_size = 64;
  // A size the caller expects throughput to peak near (a compiled backend's ramp: the native pick of its precision),
  // 0: none. batch_ramp stops at the first doubling from twice it on that gains too little (patience 0 there).
  int expected_peak_batch_size = 0;
  // Learning rates: sampled within [min, max] on a log scale; `learning_rates`, when not empty, is the
  // explicit list of grid and lr_sweep (else they log-space the range, see option lr_points).
  double min_learning_rate = 1e-5;
  double max_learning_rate = 1e-2;
  std::vector<double> learning_rates;
  // Scaling rules: a learning rate known to work at a reference batch (0: no reference). The batch
  // stage trains every candidate at reference_learning_rate (throughput does not depend on it).
  int reference_batch_size = 0;
  double reference_learning_rate = 1e-4;
  // Past the edge (composite/rate_edge_extension.h): a best rate at the end of those tried is extended by
  // edge_factor at a time, never past the bounds (rate_bound_high 0: no extension).
  double edge_factor = 3;
  double rate_bound_low = 1e-7;
  double rate_bound_high = 1.0;
  StageObjective objective = StageObjective::loss;
  int max_trials = 32;             // no strategy is told more (the Tuner base's trial cap)
  int train_steps = 0;             // a full-length learning-rate trial; 0: the engine's default
  int64_t memory_limit_bytes = 0;  // what a trial may use; 0: unknown
  // Search settings a strategy may read. min_train_steps: the fewest steps a learning-rate trial really
  // runs (its warm-up steps plus one; 0: unknown), so a shorter trial would only repeat a longer one.
  // start_learning_rate: a rate the caller expects near the best (0: none), e.g. a scaling rule's.
  int min_train_steps = 0;
  double start_learning_rate = 0;
  // Per-strategy options by name (tune tuners lists each strategy's, with defaults); make_tuner rejects a
  // name the strategy does not declare.
  std::map<std::string, double> options;
};

// One option a strategy reads: its name, its default (none when the strategy derives it from a search setting
// of the space, which `from` names), and what it does, for `tune tuners`.
struct OptionSpec {
  OptionSpec(std::string name, std::optional<double> default_value, std::string doc, std::string from = "")
      : name(std::move(name)), default_value(default_value), doc(std::move(doc)), from(std::move(from)) {}
  std::string name;
  std::optional<double> default_value;
  std::string doc;
  std::string from;  // the TunerSpace setting a derived default is read from
};

// A strategy's declared options; the one place their defaults are written.
class OptionList {
 public:
  OptionList(std::vector<OptionSpec> specs) : specs_(std::move(specs)) {}
  // The space's value, else the declared default. An undeclared name, or one declared without a
  // default, is a broken invariant (the strategy reads what it did not declare).
  double value(const TunerSpace& space, const std::string& name) const;
  // The space's value, else `derived` (an option whose default depends on the space).
  double value_or(const TunerSpace& space, const std::string& name, double derived) const;
  const std::vector<OptionSpec>& specs() const { return specs_; }
  std::vector<std::string> names() const;

 private:
  const OptionSpec& find(const std::string& name) const;
  std::vector<OptionSpec> specs_;
};

// Throws std::invalid_argument quoting the first bad field (empty ranges, non-positive values).
void validate_space(const TunerSpace& space);
// Throws std::invalid_argument naming an option `tuner` does not know, and the ones it does.
void check_option_names(const TunerSpace& space, const std::string& tuner, const std::vector<std::string>& known);

// Powers of two within [min_batch_size, max_batch_size], ascending; {min_batch_size} when there are none.
std::vector<int> power_of_two_batches(const TunerSpace& space);
// n learning rates evenly spaced in log between lo and hi, both included (one point: lo).
std::vector<double> log_spaced(double lo, double hi, int n);
// The explicit list, or `points` log-spaced over the range when the list is empty.
std::vector<double> learning_rate_list(const TunerSpace& space, int points);

}  // namespace tune
