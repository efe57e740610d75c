// The SQLite reference store: studies (what is measured where), every trial, and the best config
// per study. Versioned schema with migrations; WAL and a busy timeout so several tune processes share it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trial/trial_result.h"
#include "trial/trial_spec.h"

struct sqlite3;

namespace tune {

constexpr int kSchemaVersion = 2;
constexpr const char* kDefaultStepOptions = "attention=math,optimizer=adamw";

// Everything that makes measurements comparable. Results with different keys never mix.
struct StudyKey {
  std::string model;
  std::string model_config_hash;
  std::string instance;              // instance name, e.g. "cpu" or a profile name
  std::string instance_fingerprint;  // device name, memory, cores
  std::string libtorch_version;
  std::string tune_version;
  std::string backend;
  std::string precision;
  int seq_len = 0;
  std::string step_options = kDefaultStepOptions;  // attention and optimizer the steps ran with

  std::string key() const;  // stable hash of all fields
};

struct StoredTrial {
  int64_t id = 0;
  TrialSpec spec;
  TrialResult result;
  std::string trial_dir;
  std::string finished_at;
};

// The chosen configuration of one study (one backend of one model on one instance).
struct BestConfig {
  int batch_size = 0;
  bool batch_capped_by_range = false;  // largest size tested still fit: the real limit is higher
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
  double mfu = 0;                // model FLOPs utilization against the instance's peak; 0 when unknown
};

struct BestRow {
  int64_t study_id = 0;  // to read the study's trials (reports draw its curves)
  StudyKey key;
  BestConfig best;
  std::string updated_at;
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
  int64_t ensure_study(const StudyKey& key);
  std::optional<StoredTrial> find_trial(int64_t study_id, const std::string& config_key) const;
  // Commits one finished trial (replacing an earlier one with the same config key). Returns its id.
  int64_t record_trial(int64_t study_id, const TrialSpec& spec, const TrialResult& result,
                       const std::string& trial_dir);
  std::vector<StoredTrial> trials(int64_t study_id) const;
  void save_best(int64_t study_id, const BestConfig& best);
  // Best configs of every study, joined with their keys; ordered by model, instance, seq, backend.
  std::vector<BestRow> best_rows() const;

 private:
  void exec(const std::string& sql) const;
  void migrate();
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace tune
