// The screen (search scope, first): one throughput trial per backend x precision at one batch, stored in that
// pair's study (where its batch stage reuses it), a second round for a precision the first would drop (its fastest
// pair and its reference again) and for a compiler it would drop within a kept precision (engine/screening.h:
// screen_rechecks), then judge_screen's verdicts: the pairs that cannot win are not searched. Runs when the request
// asks for it (the default coverage) and there are two pairs or more. Reads screen_batch_size (within
// min/max_batch_size), ramp_learning_rate, screen_keep_share, screen_budget_share and trial_timeout.
#include <algorithm>
#include <array>

#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "stats/statistics.h"
#include "trial/backend_registry.h"
#include "util/duration.h"
#include "util/stop_signals.h"
#include "util/table_format.h"

namespace tune {
namespace {

// A second round may take this share of the budget left (ScreenStage::recheck).
constexpr double kRecheckBudgetShare = 0.25;

class ScreenStage : public SearchStage {
 public:
  explicit ScreenStage(const SearchSettings& s)
      : batch_(std::clamp(s.screen_batch_size, s.min_batch_size, s.max_batch_size)),
        learning_rate_(s.ramp_learning_rate),
        keep_share_(s.screen_keep_share),
        budget_share_(s.screen_budget_share),
        trial_timeout_(s.trial_timeout_seconds) {}
  std::string name() const override { return "screen"; }
  StageScope scope() const override { return StageScope::search; }

  void run_search(SearchRun& search) override {
    if (!search.request.screen || search.pairs.size() <= 1) return;
    search.summary.screening = screen(search);
    if (stop_signal() != 0) search.summary.screening.clear();  // cut short: no pair searched, none judged
    search.pairs.clear();
    for (const auto& e : search.summary.screening)
      if (e.kept) search.pairs.push_back({e.precision, e.backend});
  }

 private:
  std::vector<ScreenEntry> screen(SearchRun& search) const;
  double trial_limit(double left, const std::vector<ScreenEntry>& done, size_t pairs_left, bool baseline) const;
  void recheck(SearchRun& search, const std::vector<ScreenEntry>& entries, std::vector<BackendOutcome>& outcomes,
               const std::vector<double>& limits, ScreenRecheck& second) const;
  void judge(SearchRun& search, std::vector<ScreenEntry>& entries, const std::vector<double>& limits,
             const std::vector<ScreenRecheck>& rechecks) const;

  const int batch_;
  const double learning_rate_, keep_share_, budget_share_, trial_timeout_;
};

// Each pair's trial in its study, within its limit, then the second rounds; a stop request ends the screen with
// what it measured.
std::vector<ScreenEntry> ScreenStage::screen(SearchRun& search) const {
  const size_t pairs = search.pairs.size();
  search.progress << "tune: screening " << pairs << " backend x precision pairs at batch " << batch_ << "\n"
                  << std::flush;
  std::vector<ScreenEntry> entries;
  std::vector<BackendOutcome> outcomes;
  const double screen_end = search.elapsed() + budget_share_ * search.budget;
  std::vector<double> limits;
  try {
    for (const SearchPair& pair : search.pairs) {
      outcomes.push_back(search.open_study(pair.backend, pair.precision));
      StudyTrials trials(search, outcomes.back(), search.budget);
      trials.set_timeout(trial_limit(screen_end - search.elapsed(), entries, pairs - entries.size(),
                                     pair.backend == kNativeBackend));
      limits.push_back(*trials.timeout());
      if (stop_signal() != 0) return entries;
      const TrialResult result = trials.stored_or_run({batch_, learning_rate_, 0});
      entries.push_back({pair.backend, pair.precision, batch_, result, true, "", outcomes.back().study_id});
    }
    std::vector<ScreenRecheck> rechecks = screen_rechecks(entries, kNativeBackend, keep_share_);
    for (ScreenRecheck& second : rechecks) recheck(search, entries, outcomes, limits, second);
    judge(search, entries, limits, rechecks);
  } catch (const StopRequested&) {
    return entries;  // a screen cut short judges nothing: no verdict stored, the rerun screens again
  }
  return entries;
}

// The second round of one precision (or one compiler): its pair and its reference in the reverse of round 1's
// order, each a new trial (repeat kScreenRecheckRepeat) under its round-1 limit. It runs when its two round-1
// trials took at most a quarter of the budget left: dropping a precision drops its whole row, but a second round
// that would eat the search's budget costs more than it saves.
void ScreenStage::recheck(SearchRun& search, const std::vector<ScreenEntry>& entries,
                          std::vector<BackendOutcome>& outcomes, const std::vector<double>& limits,
                          ScreenRecheck& second) const {
  const double cost = entries[second.pair].result.wall_seconds + entries[second.reference].result.wall_seconds;
  const double left = search.budget - search.elapsed();
  const std::string what =
      second.one_backend ? entries[second.pair].backend + " " + second.precision : second.precision;
  if (cost > kRecheckBudgetShare * left) {
    search.progress << strf("tune: screen: no second round for %s: its two trials took %s, over a quarter of the "
                            "%s left\n", what.c_str(), format_duration(cost).c_str(), format_duration(left).c_str());
    return;
  }
  std::array<size_t, 2> order{second.pair, second.reference};
  if (second.pair < second.reference) std::swap(order[0], order[1]);
  search.progress << "tune: screen: a second round for " << what << ", whose one trial "
                  << (second.one_backend ? "would drop it: " : "each would drop it: ")
                  << entries[order[0]].backend << " " << entries[order[0]].precision << ", then "
                  << entries[order[1]].backend << " " << entries[order[1]].precision << "\n" << std::flush;
  std::array<double, 2> samples_per_second{};
  for (size_t i = 0; i < order.size(); ++i) {
    if (stop_signal() != 0) throw StopRequested();
    StudyTrials trials(search, outcomes[order[i]], search.budget);
    trials.set_repeat(kScreenRecheckRepeat);
    trials.set_timeout(limits[order[i]]);
    const TrialResult result = trials.stored_or_run({batch_, learning_rate_, 0});
    if (!result.ok()) return;
    samples_per_second[order[i] == second.pair ? 0 : 1] = result.samples_per_second;
  }
  second.share = samples_per_second[0] / samples_per_second[1];
}

// A screening trial's time limit: what is left of the screen's share, less what the pairs after it are expected
// to take (each the median wall time of the screening trials so far; nothing before the first has run), so a
// slow compile gets what the fast pairs left rather than an equal share (Inductor on bert-base compiles in ~145 s
// where eager's whole trial takes about a minute); at least a second (the trial then says timeout). A precision's
// native pair is its baseline, without which none of its speed-ups exists: it gets at least the median trial so
// far, past the screen's share if need be (xlm-roberta-base at 30m: eager bf16 got 1 s after a slow eager fp32).
double ScreenStage::trial_limit(double left, const std::vector<ScreenEntry>& done, size_t pairs_left,
                                bool baseline) const {
  std::vector<double> walls;
  for (const auto& e : done) walls.push_back(e.result.wall_seconds);
  const double typical = walls.empty() ? 0.0 : median(walls);
  const double limit = std::max(1.0, left - typical * static_cast<double>(pairs_left - 1));
  return baseline ? std::max(limit, typical) : limit;
}

// The verdicts, each said in the progress and stored with its study (a dropped study's row says why).
void ScreenStage::judge(SearchRun& search, std::vector<ScreenEntry>& entries, const std::vector<double>& limits,
                        const std::vector<ScreenRecheck>& rechecks) const {
  judge_screen(entries, kNativeBackend, keep_share_, rechecks);
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].result.status == TrialStatus::timeout && limits[i] < trial_timeout_)
      entries[i].reason += strf(" (its limit within the screen's %.0f%% of the budget: %s; a larger --budget tries it)",
                                100 * budget_share_, format_duration(limits[i]).c_str());
  for (const auto& e : entries) {
    search.progress << "tune: screen: " << e.backend << " " << e.precision << ": " << e.reason << "\n";
    search.db.save_screen_verdict(e.study_id, {e.batch_size, e.kept, e.reason, search.budget});
  }
}

}  // namespace

std::unique_ptr<SearchStage> make_screen_stage(const SearchSettings& settings) {
  return std::make_unique<ScreenStage>(settings);
}

}  // namespace tune
