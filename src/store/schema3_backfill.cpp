// The schema-3 backfill's derivations, kept apart from the store's queries: they describe old data only.
// New searches store their stop reasons as they end (engine/search_engine.cpp).
#include "store/schema3_backfill.h"

#include <algorithm>
#include <cmath>
#include <sstream>


namespace tune {
namespace {

// The share of samples/s a doubling had to gain in every search schema 2 stored (batch_ramp's default then).
constexpr double kSchema2MinThroughputGain = 0.05;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

int leading_int(const std::string& text, int fallback) {
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    return fallback;
  }
}

int64_t gib_text_bytes(const std::string& text) {
  try {
    return static_cast<int64_t>(std::llround(std::stod(text) * 1073741824.0));
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

InstanceHardware hardware_from_fingerprint(const std::string& fingerprint) {
  InstanceHardware h;
  const auto fields = split(fingerprint, '|');
  if (!fields.empty()) {
    const auto colon = fields[0].find(':');
    h.device = fields[0].substr(0, colon);
    h.device_name = colon == std::string::npos ? "" : fields[0].substr(colon + 1);
  }
  if (fields.size() > 1) h.memory_bytes = gib_text_bytes(fields[1]);
  if (fields.size() > 2) h.threads = leading_int(fields[2], 0);
  if (fields.size() > 3) h.device_count = leading_int(fields[3].substr(fields[3].find_first_not_of('x')), 1);
  return h;
}

StopReasons legacy_stop_reasons(const LegacyBest& best, const std::vector<LegacyTrial>& trials) {
  std::vector<BatchTrial> batch_trials;
  double smaller_best_rate = 0;  // the fastest smaller size, to tell a plateau from a ramp cut short
  for (const auto& t : trials) {
    batch_trials.push_back({t.batch_size, t.status});
    if (t.batch_size < best.batch_size && t.status == TrialStatus::ok)
      smaller_best_rate = std::max(smaller_best_rate, t.samples_per_second);
  }
  const bool plateau =
      smaller_best_rate > 0 && best.samples_per_second < smaller_best_rate * (1 + kSchema2MinThroughputGain);
  return batch_limit_of(batch_trials, best.batch_size, best.capped_by_range,
                        plateau ? BatchLimit::throughput : BatchLimit::budget);
}

}  // namespace tune
