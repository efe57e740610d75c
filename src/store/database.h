// The SQLite reference store: studies (what is measured where), every trial, the best config per study, and the
// matmul peak measured on each instance (MFU's denominator). Versioned schema with migrations; WAL and a busy
// timeout so several tune processes share it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "instance/instance.h"
#include "common/stop_reasons.h"
#include "trial/trial_result.h"
#include "trial/trial_spec.h"

struct sqlite3;

namespace tune {

constexpr int kSchemaVersion = 7;
constexpr const char* kDefaultStepOptions = "attention=math,optimizer=adamw";
// The step options a study is keyed by: "attention=math,optimizer=adamw", and ",ranks=N" for a data-parallel study
// (N processes, the batch per rank: trial/data_parallel.h); one rank adds nothing, so older keys stay valid.
std::string step_options_key(const std::string& attention, const std::string& optimizer, int ranks = 1);
// One option's value of such a key ("optimizer" of "attention=math,optimizer=fused" is "fused"); "" where absent.
std::string step_option(const std::string& step_options, const std::string& name);

// Everything that makes measurements comparable. Results with different keys never mix.
struct StudyKey {
  std::string model;
  std::string model_config_hash;
  std::string instance;              // instance name, e.g. "cpu" or a profile name
  InstanceHardware hardware;         // its fingerprint's parts: device, memory, threads, count
  std::string libtorch_version;
  std::string tune_version;
  std::string backend;
  std::string precision;
  int seq_len = 0;
  std::string step_options = kDefaultStepOptions;  // attention and optimizer the steps ran with

  std::string key() const;  // stable hash of all fields (the hardware as its fingerprint)
};

// The key of a study as a search or a trial sees it (instance, versions, step options).
StudyKey make_study_key(const std::string& model, const std::string& model_config_hash, const Instance& instance,
                        const std::string& libtorch_version, const std::string& backend, const std::string& precision,
                        int seq_len, const std::string& step_options = kDefaultStepOptions);

struct StoredTrial {
  int64_t id = 0;
  TrialSpec spec;
  TrialResult result;
  std::string trial_dir;
  std::string finished_at;
  // An older measurement of a config whose newest measurement holds its key (Database::rekey_trials keeps it under
  // the key and a suffix): kept, never lost, but no pick counts it twice.
  bool superseded = false;
};

// The chosen configuration of one study (one backend of one model on one instance), and why its searches ended.
struct BestConfig {
  int batch_size = 0;
  double learning_rate = 0;
  double samples_per_second = 0;
  double step_time = 0;
  double compile_overhead_seconds = 0;
  int64_t peak_memory_bytes = 0;
  double lr_score_loss = 0;
  int trials_run = 0;
  double step_time_ci_low = 0;   // 95% CI of the median step time
  double step_time_ci_high = 0;
  double flops_per_step = 0;     // training matmul FLOPs of one step at this batch size
  double mfu = 0;                // MFU against the instance's measured peak, else its estimate; 0: unknown
  StopReasons stop;
  double search_budget_seconds = 0;  // the --budget of the search that chose it (0: stored before schema 5)
  // The largest size tested still fit and was the fastest: the real limit is higher.
  bool batch_capped_by_range() const { return stop.batch_limit == BatchLimit::range; }
};

// The default coverage's screen on one study (a backend x precision): its one throughput trial at `batch_size`
// kept the study for the search or dropped it, `reason` in words ("dropped: 62% of the fastest ...").
struct ScreenVerdict {
  int batch_size = 0;
  bool kept = true;
  std::string reason;
  double search_budget_seconds = 0;  // the --budget of the search that screened it
};

struct ScreenedStudy {
  int64_t study_id = 0;
  StudyKey key;
  ScreenVerdict verdict;
};

struct BestRow {
  int64_t study_id = 0;  // to read the study's trials (reports draw its curves)
  StudyKey key;
  BestConfig best;
  std::string updated_at;
};

// The matmul peak measured on one instance (its hardware's fingerprint) under one libtorch at one precision
// (instance/matmul_peak.h): every later search and table of that key reuses it; a changed instance has its own.
struct StoredPeak {
  std::string fingerprint;  // InstanceHardware::fingerprint()
  std::string libtorch_version;
  std::string precision;
  MeasuredPeak measured;
};

// What Database::merge_from copied, and what the target held already (the same values).
struct MergeCounts {
  int studies_added = 0;
  int trials_added = 0;
  int trials_present = 0;
  int bests_added = 0;
  int verdicts_added = 0;
  int peaks_added = 0;  // measured peaks new to this database, or measured later than the one it held
};

class Database {
 public:
  // Opens or creates the database and migrates it to kSchemaVersion. Throws std::runtime_error
  // naming the path when the file cannot be opened, is not a tune database, or is corrupt.
  explicit Database(const std::string& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  int schema_version() const;
  const std::string& path() const { return path_; }
  int64_t ensure_study(const StudyKey& key);
  std::optional<StoredTrial> find_trial(int64_t study_id, const std::string& config_key) const;
  // Commits one finished trial (replacing an earlier one with the same config key). Returns its id.
  int64_t record_trial(int64_t study_id, const TrialSpec& spec, const TrialResult& result,
                       const std::string& trial_dir);
  std::vector<StoredTrial> trials(int64_t study_id) const;
  void save_best(int64_t study_id, const BestConfig& best);
  // Best configs of every study, joined with their keys; ordered by model, instance, seq, backend.
  std::vector<BestRow> best_rows() const;
  // Every study with its key, and its best config when it has one; by id.
  std::vector<std::pair<int64_t, StudyKey>> studies() const;
  std::optional<BestConfig> best(int64_t study_id) const;
  // The screen's latest verdict on a study (replacing an earlier one).
  void save_screen_verdict(int64_t study_id, const ScreenVerdict& verdict);
  std::optional<ScreenVerdict> screen_verdict(int64_t study_id) const;
  // Studies the screen dropped that have no best config (no search chose one), with their keys; by id.
  std::vector<ScreenedStudy> screened_out() const;
  // Stores a measured peak, replacing the one of the same fingerprint, libtorch and precision.
  void save_peak(const StoredPeak& peak);
  std::optional<StoredPeak> peak(const std::string& fingerprint, const std::string& libtorch_version,
                                 const std::string& precision) const;
  // Every measured peak, by fingerprint, libtorch and precision.
  std::vector<StoredPeak> peaks() const;
  // Copies every study, trial, best config and screen verdict of the tune database at `path` that this one lacks,
  // in one transaction, so merging the same file twice adds nothing (store/merge.cpp). A trial, best config or
  // verdict that both hold with different values is a conflict: nothing is merged, and std::runtime_error names
  // the study and the trial. Measured peaks are measurements of an instance, not results: of two for one key the
  // later measured one is kept. Throws std::invalid_argument when `path` is this database's own file.
  MergeCounts merge_from(const std::string& path);

 private:
  void exec(const std::string& sql) const;
  void migrate();
  void backfill_schema_3();
  void backfill_hardware();
  void backfill_batch_limits();
  void rekey_trials();
  std::vector<std::string> columns_of(const std::string& table, const std::vector<std::string>& except) const;
  void refuse_merge_conflicts() const;
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace tune
