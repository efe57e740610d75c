// The engine runs its stage list over a request: search-scope stages before the pairs, then each backend x
// precision through the pair stages with an equal share of what is left of the budget less what the stages after
// them reserve (so time one pair saves passes to the next), then the search-scope stages after them. A pair's best
// config is stored when its stages end.
#include "engine/search_engine.h"

#include "engine/search_stage.h"
#include "engine/stage_list.h"
#include "util/check.h"
#include "util/stop_signals.h"

namespace tune {
namespace {

// Search-scope stages come before the pair stages or after them, not between two: the pairs run once.
bool pair_stages_are_together(const StageList& stages) {
  int runs = 0;
  for (size_t i = 0; i < stages.size(); ++i)
    if (stages[i]->scope() == StageScope::pair && (i == 0 || stages[i - 1]->scope() != StageScope::pair)) ++runs;
  return runs <= 1;
}

// The share of the budget the search-scope stages after the pairs reserve (engine/search_stage.h).
double reserved_share(const StageList& stages) {
  double share = 0;
  bool after_pairs = false;
  for (const auto& stage : stages) {
    if (stage->scope() == StageScope::pair) after_pairs = true;
    else if (after_pairs) share += stage->budget_share();
  }
  return share;
}

}  // namespace

SearchEngine::SearchEngine(Database& db, TrialExecutor executor, SearchSettings settings, std::ostream& progress)
    : SearchEngine(db, std::move(executor), settings, progress, default_stages(settings)) {}

SearchEngine::SearchEngine(Database& db, TrialExecutor executor, SearchSettings settings, std::ostream& progress,
                           StageList stages)
    : db_(db), executor_(std::move(executor)), settings_(std::move(settings)), progress_(progress),
      stages_(std::move(stages)) {
  TUNE_CHECK(pair_stages_are_together(stages_), "a stage list has its pair stages in one run");
}

SearchEngine::~SearchEngine() = default;

SearchSummary SearchEngine::run(const SearchRequest& request, double budget_seconds) {
  SearchRun search(db_, executor_, settings_, progress_, request, budget_seconds);
  bool pairs_searched = false;
  for (const auto& stage : stages_) {
    if (stage->scope() == StageScope::search) {
      stage->run_search(search);
    } else if (!pairs_searched) {
      search_pairs(search);
      pairs_searched = true;
    }
  }
  search.summary.elapsed_seconds = search.elapsed();
  return std::move(search.summary);
}

void SearchEngine::search_pairs(SearchRun& search) const {
  const std::vector<SearchPair> pairs = search.pairs;
  const double reserve = reserved_share(stages_) * search.budget;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const double share = (search.budget - reserve - search.elapsed()) / static_cast<double>(pairs.size() - i);
    try {
      search.summary.backends.push_back(search_pair(search, pairs[i], share));
    } catch (const StopRequested&) {  // a trial a stage added itself (the second-seed check) was stopped
      search.summary.backends.push_back(search.open_study(pairs[i].backend, pairs[i].precision));
      search.summary.backends.back().failure = "stopped by " + stop_signal_name() + " before its search ended";
    }
  }
}

BackendOutcome SearchEngine::search_pair(SearchRun& search, const SearchPair& searched, double seconds) const {
  PairSearch pair(search, searched, seconds);
  for (const auto& stage : stages_)
    if (stage->scope() == StageScope::pair && !pair.ended()) stage->run_pair(search, pair);
  if (pair.best) {
    search.db.save_best(pair.outcome.study_id, *pair.best);
    pair.outcome.best = pair.best;
  }
  return pair.outcome;
}

}  // namespace tune
