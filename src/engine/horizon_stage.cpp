// The horizon stage (per pair, before the learning rates): how many steps a learning-rate trial trains. The one
// the user's job calls for (engine/job_horizon.h; lr_train_steps without a job), or fewer when the trials the rate
// stage expects (the list and two past its edges; a transferred rate's local check: three) are predicted not to
// fit what is left of the pair's share. Says so in the progress and notes the horizon and the job in the outcome.
// A later backend whose rate transfers from one whose search lengthened the horizon starts at that horizon.
// Reads lr_train_steps, warmup_steps, learning_rates (pretrained_learning_rates with --weights) and lr_transfer.
#include <algorithm>

#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "util/check.h"

namespace tune {
namespace {

class HorizonStage : public SearchStage {
 public:
  explicit HorizonStage(const SearchSettings& s)
      : train_steps_(s.lr_train_steps),
        warmup_steps_(s.warmup_steps),
        rates_(static_cast<int>(s.learning_rates.size())),
        pretrained_rates_(static_cast<int>(s.pretrained_learning_rates.size())),
        transfer_(s.lr_transfer) {}
  std::string name() const override { return "horizon"; }
  StageScope scope() const override { return StageScope::pair; }

  void run_pair(SearchRun& search, PairSearch& pair) override {
    TUNE_CHECK(pair.ramp && pair.ramp->best, "the horizon stage runs after a batch stage that chose a batch");
    pair.trials.next_stage(TrialPurpose::learning_rate, pair.end());
    const ToldTrial& speed = *pair.ramp->best;
    const int batch = speed.first.batch_size;
    const double step_seconds = speed.second.samples_per_second > 0 ? batch / speed.second.samples_per_second : 0;
    const double job_steps = job_steps_at(search.request.job, step_seconds);
    const std::optional<RateReference>& reference = search.references[pair.outcome.precision];
    const bool transferred = reference.has_value() && transfer_;
    // A trial runs its warm-up and at least one more step, however short the job; a transferred rate is checked
    // at the horizon it was found at (its search may have lengthened it: rate_stage.cpp).
    const int wanted = std::max({wanted_horizon(job_steps, train_steps_), warmup_steps_ + 1,
                                 transferred ? reference->horizon_steps : 0});
    const int listed = search.request.weights_dir.empty() ? rates_ : pretrained_rates_;
    const int trials = transferred ? 3 : listed + 2;
    const int afforded = pair.trials.affordable_horizon(batch, wanted, warmup_steps_ + 1, trials);
    pair.trials.set_horizon(afforded);
    pair.outcome.lr_horizon_steps = afforded;
    pair.outcome.lr_horizon_wanted = wanted;
    pair.outcome.job_steps = job_steps;
    const std::string words = describe_short_horizon(afforded, wanted, job_steps, trials);
    pair.horizon_words = words.empty() ? describe_job_horizon(afforded, job_steps) : words;
    if (!words.empty())
      search.progress << pair.trials.label() << " learning-rate " << words.substr(0, words.size() - 2) << "\n";
  }

 private:
  const int train_steps_, warmup_steps_, rates_, pretrained_rates_;
  const bool transfer_;
};

}  // namespace

std::unique_ptr<SearchStage> make_horizon_stage(const SearchSettings& settings) {
  return std::make_unique<HorizonStage>(settings);
}

}  // namespace tune
