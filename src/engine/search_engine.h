// The search: a list of stages (engine/stage_list.h) that the engine runs in order for a request inside a
// wall-clock budget, every trial through the one driver loop and committed to the store, the best config of each
// backend x precision saved with why each stage ended.
#pragma once
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/model_config.h"
#include "engine/job_horizon.h"
#include "engine/screening.h"
#include "engine/search_settings.h"
#include "instance/instance.h"
#include "store/database.h"
#include "tuners/composite/time_to_loss_ladder.h"

namespace tune {

struct SearchRequest {
  ModelConfig model;
  Instance instance;
  std::string libtorch_version;
  std::vector<std::string> backends;            // labels (trial/backend_registry.h): --backends or its default
  std::vector<std::string> precisions{"fp32"};  // each backend is searched at each precision
  // Screen first (engine/screening.h): time every backend x precision at one batch and search only those that
  // can win. The default coverage sets it; a list the user names is searched as named.
  bool screen = false;
  std::string attention = "math";               // step options, the same for every backend (TrialSpec)
  std::string optimizer = "adamw";
  // Data-parallel: every trial runs this many ranks (processes) sharing the instance's threads, each at the batch
  // the search tries (batch sizes are per rank); 1: one process (trial/data_parallel.h).
  int ranks = 1;
  int seq_len = 128;
  uint64_t seed = 0;
  DataSettings data;          // corpus, tokenizer, classification dataset (defaults when empty)
  std::string weights_dir;    // empty: random init
  std::string inputs_identity;  // of the weights and data files, by content (TrialSpec::inputs_identity)
  // The same files by path, size and modification time: what trials stored before identities went by content
  // (no "content:" prefix) were keyed by, so such a trial is reused while its files are untouched.
  std::string inputs_metadata_identity;
  // Their identity now, checked before each new trial: a file replaced or deleted mid-search stops the search
  // (a runtime error naming the files) rather than mixing trials of two inputs. Unset: not checked.
  std::function<std::string()> inputs_identity_now;
  JobLength job;              // the user's planned job: the learning-rate trials' horizon follows it
  std::string runs_dir;     // one folder per trial under it
};

struct BackendOutcome {
  std::string backend;
  std::string precision;
  int64_t study_id = 0;
  std::optional<BestConfig> best;  // with its stop reasons, as stored
  std::string ramp_stop;   // why the batch stage ended
  std::string lr_stop;     // why the learning-rate stage ended
  std::string failure;     // set when the backend produced no usable result (e.g. compile_error: ...)
  int lr_horizon_steps = 0;  // the learning-rate trials' steps (two-stage; 0: no rate stage ran)
  int lr_horizon_wanted = 0; // ...and the steps the settings or the job asked for (more when the budget cut it)
  double job_steps = 0;      // the job the horizon was chosen for, in steps (0: none given)
  int trials_run = 0;
  int trials_reused = 0;
  double trial_seconds = 0;  // wall time of every trial of the search, a reused one at its recorded time
  std::optional<TimeToLossOutcome> time_to_loss;  // objective time-to-loss: its target, trials and best
};

struct SearchSummary {
  std::string objective;  // SearchSettings::objective, stated in the output
  double budget_seconds = 0;
  double elapsed_seconds = 0;
  std::vector<BackendOutcome> backends;
  std::vector<ScreenEntry> screening;  // empty when the request did not screen
};

// Runs one trial and returns its result; production runs it in a child process.
using TrialExecutor = std::function<TrialResult(const TrialSpec& spec, const std::string& trial_dir)>;

class SearchStage;
class SearchRun;
struct SearchPair;
using StageList = std::vector<std::unique_ptr<SearchStage>>;

class SearchEngine {
 public:
  // The stages of default_stages(settings) (engine/stage_list.h).
  SearchEngine(Database& db, TrialExecutor executor, SearchSettings settings, std::ostream& progress);
  // A list of its own: search-scope stages before the first pair stage run first, the pair stages then run in
  // order for each backend x precision, and the search-scope stages after them run last.
  SearchEngine(Database& db, TrialExecutor executor, SearchSettings settings, std::ostream& progress,
               StageList stages);
  ~SearchEngine();
  SearchSummary run(const SearchRequest& request, double budget_seconds);

 private:
  void search_pairs(SearchRun& search) const;
  BackendOutcome search_pair(SearchRun& search, const SearchPair& pair, double seconds) const;

  Database& db_;
  TrialExecutor executor_;
  SearchSettings settings_;
  std::ostream& progress_;
  StageList stages_;
};

}  // namespace tune
