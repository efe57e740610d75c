// One run of the search as its stages see it: the request and settings, the store and the trial executor, the
// clock against the budget, the pairs still to search, and what the stages found so far (the summary).
#pragma once
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "common/stop_reasons.h"
#include "engine/search_engine.h"

namespace tune {

// The rate one backend's learning-rate search found at its batch: the other backends of the same precision start
// from its scaling-rule rates there (a different precision changes the numerics, so it has its own).
struct RateReference {
  std::string backend;
  int batch_size = 0;
  double learning_rate = 0;
  int horizon_steps = 0;  // the horizon it was found at (lengthened where the first did not rank the rates)
  // What the seed check of its pair found (engine/seed_check_stage.cpp), where it ran: the rate chosen over the two
  // seeds (the runner-up may have won), that rate's loss from the study's seed, the two rates' seed-to-seed spread
  // (a share of the loss) and whether the choice sat at an end of the rates tried. A later backend at the same
  // batch and horizon reuses the choice when its own loss at that rate lies within the spread (rate_stage.cpp).
  struct SeedChecked {
    double learning_rate = 0;
    double first_seed_loss = 0;
    double spread = 0;
    RateEdge edge = RateEdge::none;
  };
  std::optional<SeedChecked> checked;
};

// A backend x precision to search.
struct SearchPair {
  std::string precision;
  std::string backend;
};

class SearchRun {
 public:
  SearchRun(Database& db, const TrialExecutor& executor, const SearchSettings& settings, std::ostream& progress,
            const SearchRequest& request, double budget_seconds);

  Database& db;
  const TrialExecutor& executor;
  const SearchSettings& settings;
  std::ostream& progress;
  const SearchRequest& request;
  const double budget;  // seconds

  // Every precision x backend of the request, a precision's searches together; a stage may narrow it (the screen).
  std::vector<SearchPair> pairs;
  // Per precision: the first rate its learning-rate stage found (the later backends start from it).
  std::map<std::string, std::optional<RateReference>> references;
  SearchSummary summary;

  double elapsed() const;  // seconds since the run began
  // The key of this search's study of backend x precision (its model, instance, versions, sequence length, step
  // options).
  StudyKey study_key(const std::string& backend, const std::string& precision) const;
  // A new outcome of the pair, with its study (created in the store when new).
  BackendOutcome open_study(const std::string& backend, const std::string& precision) const;
  // The pair's screening entry, when the screen ran it (nullptr otherwise).
  const ScreenEntry* screened(const std::string& backend, const std::string& precision) const;

 private:
  double start_;
};

}  // namespace tune
