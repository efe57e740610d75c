// SQLite implementation of the reference store: schema, migrations, and the queries the engine,
// table and regression reports use. Each write is one short transaction (several processes share the file).
#include "store/database.h"

#include <sqlite3.h>

#include <chrono>
#include <thread>

#include <stdexcept>

#include "util/hash.h"

namespace tune {
namespace {

// Migration N brings the schema from version N to N+1. Append only; never edit a shipped one.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE studies (
  id INTEGER PRIMARY KEY, study_key TEXT NOT NULL UNIQUE, model TEXT NOT NULL,
  model_config_hash TEXT NOT NULL, instance TEXT NOT NULL, instance_fingerprint TEXT NOT NULL,
  libtorch_version TEXT NOT NULL, tune_version TEXT NOT NULL, backend TEXT NOT NULL,
  precision TEXT NOT NULL, seq_len INTEGER NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));
CREATE TABLE trials (
  id INTEGER PRIMARY KEY, study_id INTEGER NOT NULL REFERENCES studies(id), config_key TEXT NOT NULL,
  purpose TEXT NOT NULL, batch_size INTEGER NOT NULL, learning_rate REAL NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok','oom','diverged','timeout','crashed','compile_error','invalid')),
  samples_per_second REAL, step_time REAL, peak_memory_bytes INTEGER, score_loss REAL,
  spec_json TEXT NOT NULL, result_json TEXT NOT NULL, trial_dir TEXT NOT NULL,
  finished_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
  UNIQUE (study_id, config_key));
CREATE TABLE best_configs (
  study_id INTEGER PRIMARY KEY REFERENCES studies(id), batch_size INTEGER NOT NULL,
  batch_capped_by_range INTEGER NOT NULL, learning_rate REAL NOT NULL, samples_per_second REAL NOT NULL,
  step_time REAL NOT NULL, compile_overhead_seconds REAL NOT NULL, peak_memory_bytes INTEGER NOT NULL,
  lr_score_loss REAL NOT NULL, trials_run INTEGER NOT NULL,
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));
)sql",
    // 2: step options (attention, optimizer) key studies; best configs keep the step time's CI and MFU.
    R"sql(
ALTER TABLE studies ADD COLUMN step_options TEXT NOT NULL DEFAULT 'attention=math,optimizer=adamw';
ALTER TABLE best_configs ADD COLUMN step_time_ci_low REAL NOT NULL DEFAULT 0;
ALTER TABLE best_configs ADD COLUMN step_time_ci_high REAL NOT NULL DEFAULT 0;
ALTER TABLE best_configs ADD COLUMN flops_per_step REAL NOT NULL DEFAULT 0;
ALTER TABLE best_configs ADD COLUMN mfu REAL NOT NULL DEFAULT 0;
)sql",
};
constexpr int kMigrationCount = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kMigrationCount == kSchemaVersion, "one migration per schema version");

// A prepared statement that finalizes itself; binds by 1-based index.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("SQLite prepare failed: ") + sqlite3_errmsg(db) + " in: " + sql);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& bind(int i, const std::string& v) { return check(sqlite3_bind_text(stmt_, i, v.c_str(), -1, SQLITE_TRANSIENT)); }
  Statement& bind(int i, int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }
  Statement& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Statement& bind(int i, double v) { return check(sqlite3_bind_double(stmt_, i, v)); }
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("SQLite step failed: ") + sqlite3_errmsg(db_));
  }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string text(int col) const {
    const auto* t = sqlite3_column_text(stmt_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) throw std::runtime_error(std::string("SQLite bind failed: ") + sqlite3_errmsg(db_));
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

StoredTrial read_trial(const Statement& s) {
  StoredTrial t;
  t.id = s.integer(0);
  t.spec = nlohmann::json::parse(s.text(1)).get<TrialSpec>();
  t.result = nlohmann::json::parse(s.text(2)).get<TrialResult>();
  t.trial_dir = s.text(3);
  t.finished_at = s.text(4);
  return t;
}

// Switching a file to WAL takes an exclusive lock, for which SQLite does not call the busy handler: when two
// tune processes open a new store at once, one gets "database is locked". Retry for up to the busy timeout.
void enable_wal(sqlite3* db) {
  for (int attempt = 0;; ++attempt) {
    const int rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if (rc != SQLITE_BUSY || attempt == 100)
      throw std::runtime_error(std::string(sqlite3_errmsg(db)) + " in 'PRAGMA journal_mode=WAL'");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

std::string StudyKey::key() const {
  // Default step options leave the hash as schema 1 made it, so studies stored before them still match.
  const std::string options = step_options == kDefaultStepOptions ? "" : '\n' + step_options;
  return stable_hash(model + '\n' + model_config_hash + '\n' + instance + '\n' + instance_fingerprint + '\n' +
                     libtorch_version + '\n' + tune_version + '\n' + backend + '\n' + precision + '\n' +
                     std::to_string(seq_len) + options);
}

Database::Database(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("cannot open database '" + path + "': " + why);
  }
  sqlite3_busy_timeout(db_, 10000);
  try {
    enable_wal(db_);
    exec("PRAGMA foreign_keys=ON");
    migrate();
  } catch (const std::exception& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("database '" + path + "' is not a usable tune database (" + e.what() + ")");
  }
}

Database::~Database() { sqlite3_close(db_); }

void Database::exec(const std::string& sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = std::string(err ? err : "unknown error") + " in '" + sql.substr(0, 40) + "'";
    sqlite3_free(err);
    throw std::runtime_error(msg);
  }
}

int Database::schema_version() const {
  Statement s(db_, "PRAGMA user_version");
  s.step();
  return static_cast<int>(s.integer(0));
}

void Database::migrate() {
  // Up to date: no write at all, so reading a committed store (reports/) leaves its file byte-identical.
  if (schema_version() == kSchemaVersion) return;
  exec("BEGIN IMMEDIATE");  // one migrator at a time; others wait on the busy timeout
  try {
    const int version = schema_version();
    if (version > kSchemaVersion)
      throw std::runtime_error("schema version " + std::to_string(version) + " is newer than this tune (" +
                               std::to_string(kSchemaVersion) + ")");
    for (int v = version; v < kMigrationCount; ++v) exec(kMigrations[v]);
    exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

int64_t Database::ensure_study(const StudyKey& k) {
  Statement insert(db_,
                   "INSERT OR IGNORE INTO studies (study_key, model, model_config_hash, instance, instance_fingerprint,"
                   " libtorch_version, tune_version, backend, precision, seq_len, step_options) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  insert.bind(1, k.key()).bind(2, k.model).bind(3, k.model_config_hash).bind(4, k.instance);
  insert.bind(5, k.instance_fingerprint).bind(6, k.libtorch_version).bind(7, k.tune_version);
  insert.bind(8, k.backend).bind(9, k.precision).bind(10, k.seq_len).bind(11, k.step_options);
  insert.step();
  Statement select(db_, "SELECT id FROM studies WHERE study_key = ?");
  select.bind(1, k.key());
  if (!select.step()) throw std::runtime_error("study vanished after insert in '" + path_ + "'");
  return select.integer(0);
}

std::optional<StoredTrial> Database::find_trial(int64_t study_id, const std::string& config_key) const {
  Statement s(db_, "SELECT id, spec_json, result_json, trial_dir, finished_at FROM trials"
                   " WHERE study_id = ? AND config_key = ?");
  s.bind(1, study_id).bind(2, config_key);
  if (!s.step()) return std::nullopt;
  return read_trial(s);
}

int64_t Database::record_trial(int64_t study_id, const TrialSpec& spec, const TrialResult& result,
                               const std::string& trial_dir) {
  Statement s(db_,
              "INSERT OR REPLACE INTO trials (study_id, config_key, purpose, batch_size, learning_rate, status,"
              " samples_per_second, step_time, peak_memory_bytes, score_loss, spec_json, result_json, trial_dir)"
              " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, study_id).bind(2, spec.config_key()).bind(3, to_string(spec.purpose)).bind(4, spec.batch_size);
  s.bind(5, spec.learning_rate).bind(6, to_string(result.status)).bind(7, result.samples_per_second);
  s.bind(8, result.step_time_median).bind(9, result.peak_memory_bytes).bind(10, result.score_loss);
  s.bind(11, nlohmann::json(spec).dump()).bind(12, nlohmann::json(result).dump()).bind(13, trial_dir);
  s.step();
  return sqlite3_last_insert_rowid(db_);
}

std::vector<StoredTrial> Database::trials(int64_t study_id) const {
  Statement s(db_, "SELECT id, spec_json, result_json, trial_dir, finished_at FROM trials"
                   " WHERE study_id = ? ORDER BY id");
  s.bind(1, study_id);
  std::vector<StoredTrial> out;
  while (s.step()) out.push_back(read_trial(s));
  return out;
}

void Database::save_best(int64_t study_id, const BestConfig& b) {
  Statement s(db_,
              "INSERT OR REPLACE INTO best_configs (study_id, batch_size, batch_capped_by_range, learning_rate,"
              " samples_per_second, step_time, compile_overhead_seconds, peak_memory_bytes, lr_score_loss,"
              " trials_run, step_time_ci_low, step_time_ci_high, flops_per_step, mfu)"
              " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, study_id).bind(2, b.batch_size).bind(3, b.batch_capped_by_range ? 1 : 0).bind(4, b.learning_rate);
  s.bind(5, b.samples_per_second).bind(6, b.step_time).bind(7, b.compile_overhead_seconds);
  s.bind(8, b.peak_memory_bytes).bind(9, b.lr_score_loss).bind(10, b.trials_run);
  s.bind(11, b.step_time_ci_low).bind(12, b.step_time_ci_high).bind(13, b.flops_per_step).bind(14, b.mfu);
  s.step();
}

std::vector<BestRow> Database::best_rows() const {
  Statement s(db_,
              "SELECT s.model, s.model_config_hash, s.instance, s.instance_fingerprint, s.libtorch_version,"
              " s.tune_version, s.backend, s.precision, s.seq_len, b.batch_size, b.batch_capped_by_range,"
              " b.learning_rate, b.samples_per_second, b.step_time, b.compile_overhead_seconds,"
              " b.peak_memory_bytes, b.lr_score_loss, b.trials_run, b.updated_at, s.step_options,"
              " b.step_time_ci_low, b.step_time_ci_high, b.flops_per_step, b.mfu, s.id"
              " FROM best_configs b JOIN studies s ON s.id = b.study_id"
              " ORDER BY s.model, s.instance, s.precision, s.seq_len, s.step_options, s.backend");
  std::vector<BestRow> rows;
  while (s.step()) {
    BestRow r;
    r.key = {s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6), s.text(7),
             static_cast<int>(s.integer(8)), s.text(19)};
    r.best = {static_cast<int>(s.integer(9)), s.integer(10) != 0, s.real(11), s.real(12), s.real(13),
              s.real(14), s.integer(15), s.real(16), static_cast<int>(s.integer(17)), s.real(20), s.real(21),
              s.real(22), s.real(23)};
    r.updated_at = s.text(18);
    r.study_id = s.integer(24);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tune
