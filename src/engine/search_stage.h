// A stage of the search, and one backend x precision's search as its stages pass it on. The engine runs a list of
// stages (engine/stage_list.h): the search-scope ones before the first pair stage once, then the pair stages in
// order for each pair, then the search-scope ones after them once. A stage reads its settings when it is made.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/search_run.h"
#include "engine/study_trials.h"

namespace tune {

// One backend x precision's search: its outcome, its study's trials, its share of the budget, and what the stages
// before hand on to those after. A stage that sets outcome.failure ends the pair's search; the best config its
// stages leave is stored when they end.
struct PairSearch {
  PairSearch(SearchRun& search, const SearchPair& pair, double seconds);
  PairSearch(const PairSearch&) = delete;
  PairSearch& operator=(const PairSearch&) = delete;

  BackendOutcome outcome;
  StudyTrials trials;               // the driver's source and budget; its predictor learns across the stages
  const ScreenEntry* screened;      // the pair's screening trial (nullptr when not screened)
  const double start, seconds;      // the pair's share of the budget: from start (since the search began), seconds
  std::optional<DriveOutcome> ramp;   // the batch stage's trials and best
  std::optional<DriveOutcome> rates;  // the learning-rate stage's trials and best
  std::string horizon_words;          // the horizon chosen for the learning-rate trials, for its stop reason
  std::optional<BestConfig> best;     // stored when the pair's stages end

  bool ended() const { return !outcome.failure.empty(); }
  double end() const { return start + seconds; }
};

enum class StageScope { search, pair };

class SearchStage {
 public:
  virtual ~SearchStage() = default;
  virtual std::string name() const = 0;
  virtual StageScope scope() const = 0;
  // A search-scope stage after the pairs: the share of the budget the pairs leave for it (the confirmation's
  // rounds), so a search the budget cuts still ends with it.
  virtual double budget_share() const { return 0; }
  // A search-scope stage: once per search, over the pairs still to search (it may drop some).
  virtual void run_search(SearchRun&) {}
  // A pair-scope stage: once per pair, after the pair's earlier stages.
  virtual void run_pair(SearchRun&, PairSearch&) {}
};

// The config the study stores from a throughput trial at the chosen batch (`speed`): its speed figures, and what
// limited the batch in the batch stage (pair.ramp). The caller sets the learning rate and its stop reasons.
BestConfig speed_config(const SearchRun& search, const PairSearch& pair, const ToldTrial& speed);

// The precisions the search's pairs covered, in their order, each once.
std::vector<std::string> searched_precisions(const SearchSummary& summary);
// The row a search's confirmation and observer trials compare: every study of its row at `precision` (its model,
// instance, versions, sequence length and step options; any backend) with a best config, this search's or an
// earlier one's, each at the batch the table's row shows (engine/stored_pick.h).
std::vector<BackendOutcome> row_outcomes(const SearchRun& search, const std::string& precision);
// Native (compiled false), or the compiled backend with the most samples/s at its best, as the table picks them;
// nullptr when there is none.
BackendOutcome* pick_row_side(std::vector<BackendOutcome>& outcomes, bool compiled);
// The search's own throughput trial of the study at `batch`: the confirmation repeats it as it was specified.
std::optional<ToldTrial> throughput_trial_at(const Database& db, const BackendOutcome& o, int batch);

}  // namespace tune
