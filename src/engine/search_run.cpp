// The run's clock, its pairs in the request's order (a precision's backends together), and its studies.
#include "engine/search_run.h"

#include <algorithm>
#include <chrono>

namespace tune {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

SearchRun::SearchRun(Database& db, const TrialExecutor& executor, const SearchSettings& settings,
                     std::ostream& progress, const SearchRequest& request, double budget_seconds)
    : db(db), executor(executor), settings(settings), progress(progress), request(request), budget(budget_seconds),
      start_(now_seconds()) {
  summary.budget_seconds = budget_seconds;
  summary.objective = settings.objective;
  for (const auto& precision : request.precisions)
    for (const auto& backend : request.backends) pairs.push_back({precision, backend});
}

double SearchRun::elapsed() const { return now_seconds() - start_; }

BackendOutcome SearchRun::open_study(const std::string& backend, const std::string& precision) const {
  BackendOutcome outcome;
  outcome.backend = backend;
  outcome.precision = precision;
  outcome.study_id = db.ensure_study(study_key(backend, precision));
  return outcome;
}

StudyKey SearchRun::study_key(const std::string& backend, const std::string& precision) const {
  return make_study_key(request.model.name, request.model.config_hash(), request.instance, request.libtorch_version,
                        backend, precision, request.seq_len, step_options_key(request.attention, request.optimizer, request.ranks));
}

const ScreenEntry* SearchRun::screened(const std::string& backend, const std::string& precision) const {
  const auto& entries = summary.screening;
  const auto found = std::find_if(entries.begin(), entries.end(), [&](const ScreenEntry& e) {
    return e.backend == backend && e.precision == precision;
  });
  return found == entries.end() ? nullptr : &*found;
}

}  // namespace tune
