// The second-seed check (per pair, after the learning-rate stage): where the runner-up rate's loss lies within
// seed_check_margin of the best's (the seed-to-seed spread at this horizon, reports/lr-horizon.md), both rates
// train again from seed + 1 and the lower mean over the two seeds wins (a rate that fails from the second seed
// loses). Updates the pair's best config and says what it did in the rate stage's stop reason. Reads
// seed_check_margin (0: no check).
#include <limits>

#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "util/table_format.h"

namespace tune {
namespace {

// The next-best rate the strategy ran at the best's batch and length: the lowest loss among the other rates.
std::optional<DrivenTrial> runner_up_of(const DriveOutcome& lr) {
  const Candidate& best = lr.best->first;
  std::optional<DrivenTrial> second;
  for (const auto& t : lr.trials)
    if (t.result.ok() && t.candidate.batch_size == best.batch_size && t.candidate.train_steps == best.train_steps &&
        t.candidate.learning_rate != best.learning_rate && (!second || t.result.score_loss < second->result.score_loss))
      second = t;
  return second;
}

class SeedCheckStage : public SearchStage {
 public:
  explicit SeedCheckStage(const SearchSettings& s) : margin_(s.seed_check_margin) {}
  std::string name() const override { return "seed-check"; }
  StageScope scope() const override { return StageScope::pair; }

  void run_pair(SearchRun& search, PairSearch& pair) override {
    if (!pair.rates || !pair.rates->best || !pair.best) return;
    pair.outcome.lr_stop += check(search, pair);
    pair.best->stop.lr_stop = pair.outcome.lr_stop;
  }

 private:
  // The words for the stop reason ("" when no check was called for).
  std::string check(const SearchRun& search, PairSearch& pair) const {
    const DriveOutcome& lr = *pair.rates;
    const std::optional<DrivenTrial> second = runner_up_of(lr);
    if (margin_ <= 0 || !second || !(lr.best->second.score_loss > 0)) return "";
    const double margin = second->result.score_loss / lr.best->second.score_loss - 1;
    if (margin >= margin_) return "";
    const std::vector<Candidate> rates{lr.best->first, second->candidate};
    std::vector<double> means{lr.best->second.score_loss, second->result.score_loss};
    pair.trials.set_seed_offset(1);
    for (size_t i = 0; i < rates.size(); ++i) {
      if (const auto refusal = pair.trials.refuses(rates[i])) {
        pair.trials.set_seed_offset(0);
        return "; no second-seed check of the runner-up (within " + strf("%.2f%%", 100 * margin) + "): " + *refusal;
      }
      const TrialResult again = pair.trials.stored_or_run(rates[i]);
      means[i] = again.ok() ? (means[i] + again.score_loss) / 2 : std::numeric_limits<double>::infinity();
    }
    pair.trials.set_seed_offset(0);
    const size_t winner = means[1] < means[0] ? 1 : 0;
    pair.best->learning_rate = rates[winner].learning_rate;
    pair.best->lr_score_loss = means[winner];
    return strf("; runner-up %.1e within %.2f%% of %.1e, so both trained again from seed %llu: mean loss %.4f vs "
                "%.4f over 2 seeds, %.1e chosen",
                rates[1].learning_rate, 100 * margin, rates[0].learning_rate,
                static_cast<unsigned long long>(search.request.seed + 1), means[0], means[1],
                rates[winner].learning_rate);
  }

  const double margin_;
};

}  // namespace

std::unique_ptr<SearchStage> make_seed_check_stage(const SearchSettings& settings) {
  return std::make_unique<SeedCheckStage>(settings);
}

}  // namespace tune
