// The learning-rate horizon report's reporters: per run the Kendall tau and the regret of H's choice, per horizon
// their medians against the seed-to-seed spread of the reference losses (markdown); every score (JSON).
#include "tools/lr_horizon_report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "stats/statistics.h"
#include "util/table_format.h"

namespace tune {
namespace {

size_t argmin(const std::vector<double>& v) {
  return static_cast<size_t>(std::min_element(v.begin(), v.end()) - v.begin());
}

// Diverged runs (inf) rank last on both sides; kendall_tau needs finite values.
std::vector<double> ranked(const std::vector<double>& scores) {
  std::vector<double> out = scores;
  for (double& x : out) if (!std::isfinite(x)) x = 1e9;
  return out;
}

// Seed-to-seed noise of the reference (10 H) losses at horizon h: per family and rate, the spread of its
// seeds' losses over their mean; the median over families and rates. 0 with one seed.
double seed_noise(const std::vector<LrHorizonComparison>& all, int h) {
  std::map<std::pair<std::string, size_t>, std::vector<double>> by_rate;
  for (const auto& c : all)
    if (c.horizon == h)
      for (size_t i = 0; i < c.long_scores.size(); ++i)
        if (std::isfinite(c.long_scores[i])) by_rate[{c.family, i}].push_back(c.long_scores[i]);
  std::vector<double> spreads;
  for (const auto& [key, scores] : by_rate)
    if (scores.size() > 1)
      spreads.push_back((*std::max_element(scores.begin(), scores.end()) -
                         *std::min_element(scores.begin(), scores.end())) / mean(scores));
  return median(spreads);
}

void write_runs(std::ostream& out, const LrHorizonReport& report) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : report.comparisons)
    rows.push_back({c.family, std::to_string(c.seed), std::to_string(c.horizon), strf("%.2f", c.tau),
                    strf("%.1e", c.chosen_rate), strf("%.1e", c.best_rate), strf("%+.2f%%", 100 * c.regret)});
  write_markdown_table(out, {"family", "seed", "horizon H", "Kendall tau (H vs 10H)", "best at H", "best at 10H",
                             "10H loss regret of H's choice"}, rows);
}

void write_horizons(std::ostream& out, const LrHorizonReport& report) {
  std::vector<std::vector<std::string>> summary;
  for (int h : report.settings.horizons) {
    std::vector<double> taus, regrets;
    for (const auto& c : report.comparisons)
      if (c.horizon == h) taus.push_back(c.tau), regrets.push_back(c.regret);
    summary.push_back({std::to_string(h), strf("%.2f", median(taus)), strf("%.2f", *std::min_element(taus.begin(), taus.end())),
                       strf("%+.2f%%", 100 * median(regrets)),
                       strf("%+.2f%%", 100 * *std::max_element(regrets.begin(), regrets.end())),
                       strf("%.2f%%", 100 * seed_noise(report.comparisons, h))});
  }
  write_markdown_table(out, {"horizon H", "median tau", "lowest tau", "median regret", "largest regret",
                             "seed-to-seed spread of 10H losses (median)"}, summary);
}

class LrHorizonMarkdownReporter : public Reporter<LrHorizonReport> {
 public:
  std::string format() const override { return "md"; }
  void write(std::ostream& out, const LrHorizonReport& report) const override {
    const LrHorizonSettings& s = report.settings;
    out << strf("Schedule %s (warm-up %.0f%% of each run), batch %d, seq %d; reference runs %dx the horizon.\n\n",
                s.schedule.c_str(), 100 * s.warmup_share, s.batch_size, s.seq_len, s.long_factor);
    write_runs(out, report);
    out << "\n";
    write_horizons(out, report);
    out << "\nRegret: the loss after 10 H steps of the rate that scored best after H steps, over the best 10 H loss of "
           "any rate; below the seed-to-seed spread it is within noise.\n";
  }
};

class LrHorizonJsonReporter : public Reporter<LrHorizonReport> {
 public:
  std::string format() const override { return "json"; }
  void write(std::ostream& out, const LrHorizonReport& report) const override {
    const LrHorizonSettings& s = report.settings;
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& c : report.comparisons)
      runs.push_back({{"family", c.family}, {"seed", c.seed}, {"horizon", c.horizon}, {"tau", c.tau},
                      {"chosen_rate", c.chosen_rate}, {"best_rate", c.best_rate}, {"regret", c.regret},
                      {"short_scores", c.short_scores}, {"long_scores", c.long_scores}});
    const nlohmann::json doc{{"schema", "tune-lr-horizon"}, {"schema_version", 1}, {"schedule", s.schedule},
                             {"warmup_share", s.warmup_share}, {"rates", s.rates}, {"batch_size", s.batch_size},
                             {"seq_len", s.seq_len}, {"long_factor", s.long_factor}, {"runs", runs}};
    out << doc.dump(2) << "\n";
  }
};

}  // namespace

void rank_rates(const LrHorizonSettings& settings, LrHorizonComparison& c) {
  c.tau = kendall_tau(ranked(c.short_scores), ranked(c.long_scores));
  const size_t chosen = argmin(c.short_scores), best = argmin(c.long_scores);
  c.chosen_rate = settings.rates[chosen];
  c.best_rate = settings.rates[best];
  c.regret = c.long_scores[chosen] / c.long_scores[best] - 1;
}

ReporterList<LrHorizonReport> lr_horizon_reporters() {
  return reporter_list<LrHorizonReport, LrHorizonMarkdownReporter, LrHorizonJsonReporter>();
}

}  // namespace tune
