// The learning-rate horizon benchmark's report (reports/lr-horizon.{md,json}, scripts/lr-horizon): its settings
// and, per family, seed and horizon H, how the ranking of rates after H steps agrees with the ranking after 10 H;
// rendered by its reporters (report/reporter.h), md (the body under the script's heading) and json.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "report/reporter.h"

namespace tune {

struct LrHorizonSettings {
  std::vector<std::string> families;
  std::vector<double> rates;
  std::vector<int> horizons;
  std::vector<uint64_t> seeds;
  std::string schedule;
  double warmup_share = 0;
  int batch_size = 8;
  int seq_len = 32;
  int long_factor = 10;
};

// One family and seed at one horizon: every rate's score after H and after long_factor x H steps.
struct LrHorizonComparison {
  std::string family;
  uint64_t seed = 0;
  int horizon = 0;
  std::vector<double> short_scores, long_scores;
  double tau = 0;
  double chosen_rate = 0, best_rate = 0;
  double regret = 0;  // the long-run loss of the rate chosen at the horizon over the long run's best, minus 1
};

struct LrHorizonReport {
  LrHorizonSettings settings;
  std::vector<LrHorizonComparison> comparisons;
};

// Ranks the rates of one comparison (a diverged run, scored inf, ranks last on both sides): fills tau, the rates
// chosen at H and at 10 H, and the regret.
void rank_rates(const LrHorizonSettings& settings, LrHorizonComparison& comparison);

// md and json, in that order.
ReporterList<LrHorizonReport> lr_horizon_reporters();

}  // namespace tune
