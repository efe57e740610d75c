// The second-seed check (per pair, after the learning-rate stage): the chosen rate and its runner-up train again
// from seed + 1, always, and the lower mean over the two seeds wins (a rate that fails from the second seed loses).
// Their seed-to-seed spread is this model's noise at this horizon: a margin within it is a tie (the table shows
// both rates; a fixed margin measured on tiny models was 0.82%, full-size models' spread a median 4.6%). Updates
// the pair's best config and says what it did in the rate stage's stop reason; on the precision's reference pair
// (the one whose rate the later backends start from) it also records the choice for them to reuse. Reads
// seed_check.
#include <algorithm>
#include <limits>

#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "stats/statistics.h"
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
  explicit SeedCheckStage(const SearchSettings& s) : enabled_(s.seed_check) {}
  std::string name() const override { return "seed-check"; }
  StageScope scope() const override { return StageScope::pair; }

  void run_pair(SearchRun& search, PairSearch& pair) override {
    if (!enabled_ || !pair.rates || !pair.rates->best || !pair.best) return;
    pair.outcome.lr_stop += check(search, pair);
    pair.best->stop.lr_stop = pair.outcome.lr_stop;
  }

 private:
  // The words for the stop reason ("" when there is no runner-up to check).
  std::string check(SearchRun& search, PairSearch& pair) const {
    const DriveOutcome& lr = *pair.rates;
    const std::optional<DrivenTrial> second = runner_up_of(lr);
    if (!second || !(lr.best->second.score_loss > 0)) return "";
    const std::vector<Candidate> rates{lr.best->first, second->candidate};
    const double first_scores[2] = {lr.best->second.score_loss, second->result.score_loss};
    double means[2] = {first_scores[0], first_scores[1]}, gaps[2] = {0, 0};
    pair.trials.set_seed_offset(1);
    for (size_t i = 0; i < rates.size(); ++i) {
      if (const auto refusal = pair.trials.refuses(rates[i])) {
        pair.trials.set_seed_offset(0);
        return "; no second-seed check of the chosen rate and its runner-up: " + *refusal;
      }
      const TrialResult again = pair.trials.stored_or_run(rates[i]);
      means[i] = again.ok() ? (first_scores[i] + again.score_loss) / 2 : std::numeric_limits<double>::infinity();
      gaps[i] = again.ok() ? range_over_mean({first_scores[i], again.score_loss}).value_or(0) : 0;
    }
    pair.trials.set_seed_offset(0);
    const size_t winner = means[1] < means[0] ? 1 : 0;
    pair.best->learning_rate = rates[winner].learning_rate;
    pair.best->lr_score_loss = means[winner];
    const double spread = std::max(gaps[0], gaps[1]), margin = means[1 - winner] / means[winner] - 1;
    record_for_reuse(search, pair, RateReference::SeedChecked{rates[winner].learning_rate, first_scores[winner],
                                                              spread, pair.best->stop.lr_edge});
    return strf("; %.1e and runner-up %.1e trained again from seed %llu: mean loss %.4f vs %.4f over 2 seeds, %.1e "
                "chosen; seed-to-seed spread %.2f%%, margin %.2f%%: %s",
                rates[0].learning_rate, rates[1].learning_rate,
                static_cast<unsigned long long>(search.request.seed + 1), means[0], means[1],
                rates[winner].learning_rate, 100 * spread, 100 * margin,
                margin <= spread ? "a tie within the seed spread" : "apart beyond the seed spread");
  }

  // Where this pair's rate is its precision's reference, what the check chose, for the later backends at its
  // batch and horizon to reuse (engine/rate_stage.cpp).
  static void record_for_reuse(SearchRun& search, const PairSearch& pair, const RateReference::SeedChecked& checked) {
    std::optional<RateReference>& reference = search.references[pair.outcome.precision];
    if (reference && reference->backend == pair.outcome.backend) reference->checked = checked;
  }

  const bool enabled_;
};

}  // namespace

std::unique_ptr<SearchStage> make_seed_check_stage(const SearchSettings& settings) {
  return std::make_unique<SeedCheckStage>(settings);
}

}  // namespace tune
