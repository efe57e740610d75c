// The learning-rate horizon benchmark: per tiny family and seed, how the ranking of rates after H steps agrees
// with their ranking after 10 H steps (each run with the same schedule over its own length), to pick the default.
#include <boost/program_options.hpp>

#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "stats/statistics.h"
#include "trial/trial_runner.h"
#include "util/table_format.h"

using namespace tune;
namespace po = boost::program_options;

namespace {

struct Settings {
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

// The score of one learning-rate trial: its tail-mean loss; a failed or diverged run ranks last.
double score_of(const Settings& s, const std::string& family, double rate, int steps, uint64_t seed) {
  TrialSpec spec;
  spec.model = resolve_model(family);
  spec.purpose = TrialPurpose::learning_rate;
  spec.seq_len = s.seq_len;
  spec.batch_size = s.batch_size;
  spec.learning_rate = rate;
  spec.seed = seed;
  spec.train_steps = steps;
  spec.lr_schedule = s.schedule;
  spec.lr_warmup_steps = static_cast<int>(std::lround(s.warmup_share * steps));
  spec.threads = 2;
  const TrialResult r = run_trial_in_process(spec);
  return r.ok() ? r.score_loss : std::numeric_limits<double>::infinity();
}

struct Comparison {
  std::string family;
  uint64_t seed = 0;
  int horizon = 0;
  std::vector<double> short_scores, long_scores;
  double tau = 0;
  double chosen_rate = 0, best_rate = 0;
  double regret = 0;  // the long-run loss of the rate chosen at the horizon over the long run's best, minus 1
};

size_t argmin(const std::vector<double>& v) {
  return static_cast<size_t>(std::min_element(v.begin(), v.end()) - v.begin());
}

// Diverged runs (inf) rank last on both sides; kendall_tau needs finite values.
std::vector<double> ranked(const std::vector<double>& scores) {
  std::vector<double> out = scores;
  for (double& x : out) if (!std::isfinite(x)) x = 1e9;
  return out;
}

Comparison compare(const Settings& s, const std::string& family, uint64_t seed, int horizon) {
  Comparison c{family, seed, horizon};
  for (double rate : s.rates) {
    c.short_scores.push_back(score_of(s, family, rate, horizon, seed));
    c.long_scores.push_back(score_of(s, family, rate, s.long_factor * horizon, seed));
    std::cerr << strf("%s seed %llu H %d lr %.1e: %.4f / %.4f\n", family.c_str(), (unsigned long long)seed, horizon,
                      rate, c.short_scores.back(), c.long_scores.back());
  }
  c.tau = kendall_tau(ranked(c.short_scores), ranked(c.long_scores));
  const size_t chosen = argmin(c.short_scores), best = argmin(c.long_scores);
  c.chosen_rate = s.rates[chosen];
  c.best_rate = s.rates[best];
  c.regret = c.long_scores[chosen] / c.long_scores[best] - 1;
  return c;
}

// Seed-to-seed noise of the reference (10 H) losses at horizon h: per family and rate, the spread of its
// seeds' losses over their mean; the median over families and rates. 0 with one seed.
double seed_noise(const std::vector<Comparison>& all, int h) {
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

void write_report(std::ostream& out, const Settings& s, const std::vector<Comparison>& all) {
  out << strf("Schedule %s (warm-up %.0f%% of each run), batch %d, seq %d; reference runs %dx the horizon.\n\n",
              s.schedule.c_str(), 100 * s.warmup_share, s.batch_size, s.seq_len, s.long_factor);
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : all)
    rows.push_back({c.family, std::to_string(c.seed), std::to_string(c.horizon), strf("%.2f", c.tau),
                    strf("%.1e", c.chosen_rate), strf("%.1e", c.best_rate), strf("%+.2f%%", 100 * c.regret)});
  write_markdown_table(out, {"family", "seed", "horizon H", "Kendall tau (H vs 10H)", "best at H", "best at 10H",
                             "10H loss regret of H's choice"}, rows);
  out << "\n";
  std::vector<std::vector<std::string>> summary;
  for (int h : s.horizons) {
    std::vector<double> taus, regrets;
    for (const auto& c : all)
      if (c.horizon == h) taus.push_back(c.tau), regrets.push_back(c.regret);
    summary.push_back({std::to_string(h), strf("%.2f", median(taus)), strf("%.2f", *std::min_element(taus.begin(), taus.end())),
                       strf("%+.2f%%", 100 * median(regrets)),
                       strf("%+.2f%%", 100 * *std::max_element(regrets.begin(), regrets.end())),
                       strf("%.2f%%", 100 * seed_noise(all, h))});
  }
  write_markdown_table(out, {"horizon H", "median tau", "lowest tau", "median regret", "largest regret",
                             "seed-to-seed spread of 10H losses (median)"}, summary);
  out << "\nRegret: the loss after 10 H steps of the rate that scored best after H steps, over the best 10 H loss of "
         "any rate; below the seed-to-seed spread it is within noise.\n";
}

nlohmann::json to_json(const Settings& s, const std::vector<Comparison>& all) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& c : all)
    runs.push_back({{"family", c.family}, {"seed", c.seed}, {"horizon", c.horizon}, {"tau", c.tau},
                    {"chosen_rate", c.chosen_rate}, {"best_rate", c.best_rate}, {"regret", c.regret},
                    {"short_scores", c.short_scores}, {"long_scores", c.long_scores}});
  return {{"schema", "tune-lr-horizon"}, {"schema_version", 1}, {"schedule", s.schedule},
          {"warmup_share", s.warmup_share}, {"rates", s.rates}, {"batch_size", s.batch_size},
          {"seq_len", s.seq_len}, {"long_factor", s.long_factor}, {"runs", runs}};
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  std::string out_path;
  po::options_description desc("lr_horizon");
  desc.add_options()("help", "this help")
      ("families", po::value(&s.families)->multitoken()->default_value({"bert-tiny", "gpt2-tiny", "t5-tiny"}, "bert-tiny gpt2-tiny t5-tiny"), "tiny models")
      ("rates", po::value(&s.rates)->multitoken()->default_value({1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2}, "1e-4 .. 3e-2 by 3x"), "learning rates")
      ("horizons", po::value(&s.horizons)->multitoken()->default_value({12, 25, 50, 100}, "12 25 50 100"), "horizons H")
      ("seeds", po::value(&s.seeds)->multitoken()->default_value({0, 1}, "0 1"), "seeds")
      ("schedule", po::value(&s.schedule)->default_value("cosine"), "constant | cosine")
      ("warmup-share", po::value(&s.warmup_share)->default_value(0.1), "share of each run's steps warming up")
      ("out", po::value(&out_path)->default_value("lr-horizon"), "writes OUT.md and OUT.json");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, desc), vm);
  if (vm.count("help")) return std::cout << desc, 0;
  po::notify(vm);
  std::vector<Comparison> all;
  for (const auto& family : s.families)
    for (uint64_t seed : s.seeds)
      for (int h : s.horizons) all.push_back(compare(s, family, seed, h));
  std::ofstream md(out_path + ".md");
  write_report(md, s, all);
  std::ofstream(out_path + ".json") << to_json(s, all).dump(2) << "\n";
  write_report(std::cout, s, all);
  return 0;
}
