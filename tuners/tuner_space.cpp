// TunerSpace helpers: validation, declared options and their lookup, and the candidate lists strategies share.
// Validation errors quote the bad value and say what was expected.
#include "tuners/tuner_space.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "util/check.h"
#include "util/join.h"
#include "util/table_format.h"

namespace tune {

const OptionSpec& OptionList::find(const std::string& name) const {
  for (const auto& spec : specs_)
    if (spec.name == name) return spec;
  TUNE_CHECK(false, ("a strategy reads option '" + name + "' that it does not declare").c_str());
  return specs_.front();
}

double OptionList::value(const TunerSpace& space, const std::string& name) const {
  const OptionSpec& spec = find(name);
  TUNE_CHECK(spec.default_value.has_value(), ("option '" + name + "' has no default: read it with value_or").c_str());
  return value_or(space, name, *spec.default_value);
}

double OptionList::value_or(const TunerSpace& space, const std::string& name, double derived) const {
  find(name);
  const auto it = space.options.find(name);
  return it == space.options.end() ? derived : it->second;
}

std::vector<std::string> OptionList::names() const {
  std::vector<std::string> out;
  for (const auto& spec : specs_) out.push_back(spec.name);
  return out;
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
  if (s.expected_peak_batch_size < 0)
    throw std::invalid_argument(strf("expected peak batch %d: expected >= 0 (0: none)", s.expected_peak_batch_size));
  if (s.reference_batch_size < 0 || !(s.reference_learning_rate > 0))
    throw std::invalid_argument(strf("reference batch %d, learning rate %g: expected batch >= 0 and rate > 0",
                                     s.reference_batch_size, s.reference_learning_rate));
  if (s.rate_bound_high > 0 && (!(s.edge_factor > 1) || !(s.rate_bound_low > 0) || s.rate_bound_low > s.rate_bound_high))
    throw std::invalid_argument(strf("learning-rate edge extension: factor %g, bounds [%g, %g]: expected factor > 1 "
                                     "and 0 < low <= high (high 0: no extension)", s.edge_factor, s.rate_bound_low,
                                     s.rate_bound_high));
  if (s.max_trials < 1) throw std::invalid_argument(strf("max_trials %d: expected >= 1", s.max_trials));
  if (s.train_steps < 0) throw std::invalid_argument(strf("train_steps %d: expected >= 0", s.train_steps));
  if (s.memory_limit_bytes < 0)
    throw std::invalid_argument(strf("memory limit %lld bytes: expected >= 0 (0: unknown)",
                                     static_cast<long long>(s.memory_limit_bytes)));
}

void check_option_names(const TunerSpace& space, const std::string& tuner, const std::vector<std::string>& known) {
  for (const auto& [name, value] : space.options) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    throw std::invalid_argument("tuner '" + tuner + "' has no option '" + name + "': expected one of " +
                                (known.empty() ? std::string("(none)") : join(known)));
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
