// Paired ratios: the t-interval is taken on the logs, where a ratio's noise is symmetric (x1.1 and /1.1 alike).
#include "stats/paired_ratio.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>

#include "stats/statistics.h"
#include "util/table_format.h"

namespace tune {
namespace {

void check_inputs(const std::vector<double>& ratios, double confidence) {
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument(strf("confidence %g is not within (0, 1)", confidence));
  for (double r : ratios)
    if (!(r > 0 && std::isfinite(r)))
      throw std::invalid_argument(strf("paired ratio %g is not a positive number", r));
}

PairedVerdict verdict_of(const PairedRatio& p) {
  if (p.rounds < 2) return PairedVerdict::unconfirmed;
  if (p.ci_low > 1) return PairedVerdict::faster;
  if (p.ci_high < 1) return PairedVerdict::slower;
  return PairedVerdict::no_difference;
}

}  // namespace

PairedRatio paired_ratio(const std::vector<double>& ratios, double confidence) {
  check_inputs(ratios, confidence);
  PairedRatio p;
  p.rounds = static_cast<int>(ratios.size());
  if (ratios.empty()) return p;
  std::vector<double> logs;
  for (double r : ratios) logs.push_back(std::log(r));
  const double centre = mean(logs);
  double half_width = 0;
  if (p.rounds >= 2) {
    double squares = 0;
    for (double l : logs) squares += (l - centre) * (l - centre);
    const double standard_error = std::sqrt(squares / (p.rounds - 1) / p.rounds);
    const boost::math::students_t t(p.rounds - 1);
    half_width = boost::math::quantile(boost::math::complement(t, (1 - confidence) / 2)) * standard_error;
  }
  p.ratio = std::exp(centre);
  p.ci_low = std::exp(centre - half_width);
  p.ci_high = std::exp(centre + half_width);
  p.verdict = verdict_of(p);
  return p;
}

std::string to_string(PairedVerdict verdict) {
  switch (verdict) {
    case PairedVerdict::faster: return "faster";
    case PairedVerdict::slower: return "slower";
    case PairedVerdict::no_difference: return "no difference";
    case PairedVerdict::unconfirmed: return "unconfirmed";
  }
  return "unconfirmed";
}

std::vector<double> round_ratios(const std::vector<double>& numerators, const std::vector<double>& denominators) {
  std::vector<double> ratios;
  for (size_t i = 0; i < numerators.size() && i < denominators.size(); ++i)
    if (numerators[i] > 0 && denominators[i] > 0) ratios.push_back(numerators[i] / denominators[i]);
  return ratios;
}

}  // namespace tune
