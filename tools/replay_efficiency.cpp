// Replays every time-to-loss strategy on a recorded exhaustive grid (a `tune --objective time-to-loss
// --tuner grid` database): the same trials on one clock, so strategies differ by their logic, not by noise.
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "engine/replay_landscape.h"
#include "engine/tuner_replay.h"
#include "store/database.h"
#include "tuners/composite/time_to_loss_ladder.h"
#include "tuners/tuner_registry.h"
#include "util/table_format.h"

using namespace tune;

namespace {

struct Recorded {
  ReplayLandscape landscape{0, 0, 0};
  TimeToLossPlan plan;  // step times, target and learning rates of the recorded grid
  double trial_overhead = 0;
};

// The grid's throughput trials become the batch records, its full-length loss trials the curves; the
// per-trial overhead is the mean of wall time minus steps x step time over the loss trials (or `overhead`).
Recorded load_grid(const std::string& path, const TimeToLossTarget& target, std::optional<double> overhead_override) {
  Database db(path);
  Recorded r;
  double overhead = 0;
  int loss_trials = 0;
  std::map<int, RecordedBatch> batches;
  std::vector<StoredTrial> losses;
  for (const auto& t : db.trials(1)) {
    if (t.spec.purpose == TrialPurpose::throughput && t.result.ok()) {
      batches[t.spec.batch_size] = {TrialStatus::ok, t.result.samples_per_second, t.result.peak_memory_bytes};
      r.plan.step_seconds[t.spec.batch_size] = t.result.step_time_median;
    } else if (t.spec.purpose == TrialPurpose::learning_rate && t.result.ok() &&
               t.spec.train_steps == steps_for_samples(target.samples, t.spec.batch_size)) {
      losses.push_back(t);
    }
  }
  for (const auto& t : losses) {
    overhead += t.result.wall_seconds - t.spec.train_steps * r.plan.step_seconds.at(t.spec.batch_size);
    ++loss_trials;
  }
  r.trial_overhead = overhead_override ? *overhead_override : loss_trials ? std::max(0.0, overhead / loss_trials) : 0;
  r.landscape = ReplayLandscape(0, 0, r.trial_overhead);
  for (const auto& [b, rec] : batches) r.landscape.record_batch(b, rec);
  for (const auto& t : losses) r.landscape.record_losses(t.spec.batch_size, t.spec.learning_rate, t.result.losses);
  r.plan.target = target;
  return r;
}

// The learning rates the grid lists, ascending.
std::vector<double> listed_rates(const std::string& path) {
  std::vector<double> rates;
  for (const auto& t : Database(path).trials(1))
    if (t.spec.purpose == TrialPurpose::learning_rate &&
        std::find(rates.begin(), rates.end(), t.spec.learning_rate) == rates.end())
      rates.push_back(t.spec.learning_rate);
  std::sort(rates.begin(), rates.end());
  return rates;
}

struct Replayed {
  TimeToLossOutcome outcome;
  double cost_seconds = 0;
};

// The time-to-loss stage with `lr_tuner`, its ladder (when it runs one) from `start_batch`, on the recorded grid.
Replayed replay(const Recorded& rec, const std::vector<double>& rates, const std::string& lr_tuner, int start_batch,
                bool cap) {
  TimeToLossPlan plan = rec.plan;
  plan.lr_tuner = lr_tuner;
  plan.throughput_batch = start_batch;
  plan.max_batch_size = rec.plan.step_seconds.rbegin()->first;
  plan.lr_space.learning_rates = rates;
  plan.lr_space.min_learning_rate = rates.front();
  plan.lr_space.max_learning_rate = rates.back();
  plan.lr_space.max_trials = 100;
  plan.lr_space.min_train_steps = 4;  // a trial's 3 warm-up steps and one more, as the engine says
  plan.time_cap = cap;
  TimeToLossLadder ladder(plan);
  LandscapeSource source(rec.landscape);
  const DriveOutcome run = drive(ladder, source);
  return {ladder.outcome(false), run.run_seconds()};
}

// The grid first (the reference), then every other learning-rate strategy of the registry.
std::vector<std::string> strategies() {
  std::vector<std::string> names{"grid"};
  for (const auto& name : tuner_names())
    if (name != "grid" && tuner_supports(name, StageObjective::loss)) names.push_back(name);
  return names;
}

std::vector<std::string> row(const std::string& name, const std::string& start, const Replayed& r, double truth,
                             double grid_cost) {
  const auto& best = r.outcome.best;
  if (!best) return {name, start, "-", "-", "-", "-", std::to_string(r.outcome.trials.size()),
                     strf("%.1f", r.cost_seconds), strf("%.0f%%", 100 * r.cost_seconds / grid_cost)};
  return {name, start, strf("%d", best->candidate.batch_size), strf("%.2e", best->candidate.learning_rate),
          strf("%.3f", best->seconds_to_target), strf("%+.1f%%", 100 * regret(best->seconds_to_target, truth, Better::lower)),
          std::to_string(r.outcome.trials.size()), strf("%.1f", r.cost_seconds),
          strf("%.0f%%", 100 * r.cost_seconds / grid_cost)};
}

std::string rate_list(const std::vector<double>& rates) {
  std::string out;
  for (double r : rates) out += (out.empty() ? "" : ", ") + strf("%.1e", r);
  return out;
}

// `--rates A,B,...` anywhere in the arguments: the strategies' list (the engine's, say) instead of the grid's;
// rates between the grid's are replayed on curves interpolated between its neighbours. Removed from argv.
std::optional<std::vector<double>> take_rates_option(int& argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) != "--rates") continue;
    std::vector<double> rates;
    std::stringstream list(argv[i + 1]);
    for (std::string rate; std::getline(list, rate, ',');) rates.push_back(std::stod(rate));
    std::sort(rates.begin(), rates.end());
    for (int j = i; j + 2 <= argc; ++j) argv[j] = argv[j + 2];
    argc -= 2;
    return rates;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<std::vector<double>> strategy_rates = take_rates_option(argc, argv);
  if (argc < 2) {
    std::cerr << "usage: replay_efficiency GRID.db [target_samples reference_batch reference_lr [overhead_s]] "
                 "[--rates A,B,...]\n"
                 "  overhead_s: replay with this per-trial overhead instead of the recorded one (what-if)\n"
                 "  --rates: the strategies' learning rates (default: the grid's own list)\n";
    return 2;
  }
  const TimeToLossTarget target{0, argc > 2 ? std::stoi(argv[2]) : 256, argc > 3 ? std::stoi(argv[3]) : 8,
                                argc > 4 ? std::stod(argv[4]) : 3e-3};
  // What-if: the same trials with another fixed cost per trial (process start, model build).
  const Recorded rec = load_grid(argv[1], target, argc > 5 ? std::optional<double>(std::stod(argv[5])) : std::nullopt);
  const std::vector<double> rates = listed_rates(argv[1]);
  const Replayed truth = replay(rec, rates, "grid", 1, false);
  if (!truth.outcome.best) {
    std::cerr << "replay_efficiency: no grid trial reached the target\n";
    return 1;
  }
  const TimeToLossTrial& best = *truth.outcome.best;
  std::vector<std::vector<std::string>> rows;
  for (const auto& name : strategies()) {
    const bool joint = tuner_supports(name, StageObjective::throughput);  // it searches batch sizes too: once
    for (int start : {1, 2, 4, 8, 16, 32})
      if (rec.plan.step_seconds.count(start) && (!joint || start == 1))
        rows.push_back(row(name, joint ? "joint" : std::to_string(start),
                           replay(rec, strategy_rates ? *strategy_rates : rates, name, start, true),
                           best.seconds_to_target, truth.cost_seconds));
  }
  std::cout << strf("Replayed on the recorded grid (%s): target %.4f, best batch %d lr %.2e in %.3f s; the full grid "
                    "costs %.1f s replayed (trial overhead %.1f s each); learning-rate trials only (no throughput stage). "
                    "The strategies' rates: %s.\n\n",
                    argv[1], truth.outcome.target_loss, best.candidate.batch_size, best.candidate.learning_rate,
                    best.seconds_to_target, truth.cost_seconds, rec.trial_overhead,
                    strategy_rates ? (rate_list(*strategy_rates) + " (between the grid's rates, its curves interpolated)").c_str()
                                   : "the grid's own");
  write_markdown_table(std::cout, {"strategy", "ladder start batch", "batch", "lr", "s to target", "regret", "trials",
                                   "cost s", "cost / grid"}, rows);
  return 0;
}
