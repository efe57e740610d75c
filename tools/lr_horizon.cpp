// The learning-rate horizon benchmark: per tiny family and seed, how the ranking of rates after H steps agrees
// with their ranking after 10 H steps (each run with the same schedule over its own length), to pick the default.
// Runs the trials; its report and reporters are tools/lr_horizon_report.h.
#include <boost/program_options.hpp>

#include <cmath>
#include <iostream>
#include <limits>

#include "tools/lr_horizon_report.h"
#include "trial/trial_runner.h"
#include "util/table_format.h"

using namespace tune;
namespace po = boost::program_options;

namespace {

// The score of one learning-rate trial: its tail-mean loss; a failed or diverged run ranks last.
double score_of(const LrHorizonSettings& s, const std::string& family, double rate, int steps, uint64_t seed) {
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

LrHorizonComparison compare(const LrHorizonSettings& s, const std::string& family, uint64_t seed, int horizon) {
  LrHorizonComparison c{family, seed, horizon};
  for (double rate : s.rates) {
    c.short_scores.push_back(score_of(s, family, rate, horizon, seed));
    c.long_scores.push_back(score_of(s, family, rate, s.long_factor * horizon, seed));
    std::cerr << strf("%s seed %llu H %d lr %.1e: %.4f / %.4f\n", family.c_str(), (unsigned long long)seed, horizon,
                      rate, c.short_scores.back(), c.long_scores.back());
  }
  rank_rates(s, c);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  LrHorizonReport report;
  LrHorizonSettings& s = report.settings;
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
  for (const auto& family : s.families)
    for (uint64_t seed : s.seeds)
      for (int h : s.horizons) report.comparisons.push_back(compare(s, family, seed, h));
  for (const auto& reporter : lr_horizon_reporters()) {
    write_report_file(out_path + "." + reporter->format(), *reporter, report);
    if (reporter->format() == "md") reporter->write(std::cout, report);  // and on the terminal
  }
  return 0;
}
