// TunerSpace helpers: validation, option lookup and the candidate lists strategies share.
// Validation errors quote the bad value and say what was expected.
#include "tuners/tuner_space.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "util/table_format.h"

namespace tune {

double TunerSpace::option(const std::string& name, double fallback) const {
  const auto it = options.find(name);
  return it == options.end() ? fallback : it->second;
}

void validate_space(const TunerSpace& s) {
  if (s.min_batch_size < 1 || s.max_batch_size < s.min_batch_size)
    throw std::invalid_argument(strf("batch range [%d, %d]: expected 1 <= min <= max", s.min_batch_size,
                                     s.max_batch_size));
  if (!(s.min_learning_rate > 0) || !(s.max_learning_rate >= s.min_learning_rate))
    throw std::invalid_argument(strf("learning-rate range [%g, %g]: expected 0 < min <= max", s.min_learning_rate,
                                     s.max_learning_rate));
  for (double lr : s.learning_rates)
    if (!(lr > 0)) throw std::invalid_argument(strf("learning rate %g in the list: expected > 0", lr));
  if (s.reference_batch_size < 0 || !(s.reference_learning_rate > 0))
    throw std::invalid_argument(strf("reference batch %d, learning rate %g: expected batch >= 0 and rate > 0",
                                     s.reference_batch_size, s.reference_learning_rate));
  if (s.max_trials < 1) throw std::invalid_argument(strf("max_trials %d: expected >= 1", s.max_trials));
  if (s.train_steps < 0) throw std::invalid_argument(strf("train_steps %d: expected >= 0", s.train_steps));
  if (s.memory_limit_bytes < 0)
    throw std::invalid_argument(strf("memory limit %lld bytes: expected >= 0 (0: unknown)",
                                     static_cast<long long>(s.memory_limit_bytes)));
}

void check_option_names(const TunerSpace& space, const std::string& tuner, const std::vector<std::string>& known) {
  for (const auto& [name, value] : space.options) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw std::invalid_argument("tuner '" + tuner + "' has no option '" + name + "': expected one of " +
                                (list.empty() ? std::string("(none)") : list));
  }
}

std::vector<int> power_of_two_batches(const TunerSpace& space) {
  std::vector<int> sizes;
  for (int64_t b = 1; b <= space.max_batch_size; b *= 2)
    if (b >= space.min_batch_size) sizes.push_back(static_cast<int>(b));
  // A learning-rate stage at a batch that is no power of two (batch_search may choose 72) keeps it.
  if (sizes.empty()) sizes.push_back(space.min_batch_size);
  return sizes;
}

std::vector<double> log_spaced(double lo, double hi, int n) {
  std::vector<double> values;
  for (int i = 0; i < n; ++i) {
    const double t = n == 1 ? 0.0 : static_cast<double>(i) / (n - 1);
    values.push_back(std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo))));
  }
  return values;
}

std::vector<double> learning_rate_list(const TunerSpace& space, int points) {
  if (!space.learning_rates.empty()) return space.learning_rates;
  return log_spaced(space.min_learning_rate, space.max_learning_rate, std::max(1, points));
}

}  // namespace tune
