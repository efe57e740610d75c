// The search loop: for each backend, a batch-size ramp (throughput) then a learning-rate sweep
// (loss after a fixed number of steps), inside a wall-clock budget, every trial committed to the store.
#pragma once
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/search_settings.h"
#include "instance/instance.h"
#include "models/model_config.h"
#include "store/database.h"
#include "tuners/tuner.h"

namespace tune {

struct SearchRequest {
  ModelConfig model;
  Instance instance;
  std::string libtorch_version;
  std::vector<std::string> backends{"eager", "jit"};
  std::string precision = "fp32";
  int seq_len = 128;
  uint64_t seed = 0;
  std::string corpus_path;    // empty: default corpus
  std::string tokenizer_dir;  // empty: fallback tokenizer
  std::string dataset_path;   // classification CSV; empty: default
  std::string weights_dir;    // empty: random init
  std::string runs_dir;     // one folder per trial under it
};

struct BackendOutcome {
  std::string backend;
  std::optional<BestConfig> best;
  std::string ramp_stop;   // why the batch ramp ended
  std::string lr_stop;     // why the learning-rate sweep ended
  std::string failure;     // set when the backend produced no usable result (e.g. compile_error: ...)
  int trials_run = 0;
  int trials_reused = 0;
};

struct SearchSummary {
  double budget_seconds = 0;
  double elapsed_seconds = 0;
  std::vector<BackendOutcome> backends;
};

// Runs one trial and returns its result; production runs it in a child process.
using TrialExecutor = std::function<TrialResult(const TrialSpec& spec, const std::string& trial_dir)>;

class SearchEngine {
 public:
  SearchEngine(Database& db, TrialExecutor executor, SearchSettings settings, std::ostream& progress);
  SearchSummary run(const SearchRequest& request, double budget_seconds);

 private:
  struct Stage;
  BackendOutcome search_backend(const SearchRequest& request, const std::string& backend, double backend_seconds);
  std::optional<std::pair<Candidate, TrialResult>> run_stage(Tuner& tuner, Stage& stage);
  TrialResult measure(Stage& stage, const TrialSpec& spec);
  TrialSpec make_spec(const SearchRequest& request, const std::string& backend, const Candidate& candidate,
                      TrialPurpose purpose) const;
  StudyKey study_key(const SearchRequest& request, const std::string& backend) const;
  double elapsed() const;

  Database& db_;
  TrialExecutor executor_;
  SearchSettings settings_;
  std::ostream& progress_;
  double start_ = 0;
  double budget_ = 0;
};

}  // namespace tune
