// SQLite implementation of the reference store: schema, migrations, and the queries the engine,
// table and regression reports use. Each write is one short transaction (several processes share the file).
#include "store/database.h"

#include <sqlite3.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include <cstring>
#include <stdexcept>

#include "store/schema3_backfill.h"
#include "store/sqlite_statement.h"
#include "util/check.h"
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
    // 3: studies keep their instance's hardware as parts, best configs why their searches ended
    // (Database::backfill_schema_3 fills both for rows stored before, then kSchema3Drops drops what they derive).
    R"sql(
ALTER TABLE studies ADD COLUMN device TEXT NOT NULL DEFAULT '';
ALTER TABLE studies ADD COLUMN device_name TEXT NOT NULL DEFAULT '';
ALTER TABLE studies ADD COLUMN memory_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE studies ADD COLUMN threads INTEGER NOT NULL DEFAULT 0;
ALTER TABLE studies ADD COLUMN device_count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE best_configs ADD COLUMN batch_limit TEXT NOT NULL DEFAULT 'budget';
ALTER TABLE best_configs ADD COLUMN limit_batch_size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE best_configs ADD COLUMN limit_status TEXT NOT NULL DEFAULT 'ok';
ALTER TABLE best_configs ADD COLUMN batch_stop TEXT NOT NULL DEFAULT '';
ALTER TABLE best_configs ADD COLUMN lr_stop_cause TEXT NOT NULL DEFAULT 'strategy';
ALTER TABLE best_configs ADD COLUMN lr_stop TEXT NOT NULL DEFAULT '';
)sql",
    // 4: whether the chosen rate was left at an end of the rates tried. Rows stored before the edge extension
    // searched past no edge: a best rate at the top (bottom) of its batch's learning-rate trials is unfound.
    R"sql(
ALTER TABLE best_configs ADD COLUMN lr_edge TEXT NOT NULL DEFAULT '';
UPDATE best_configs SET lr_edge = CASE
  WHEN learning_rate >= (SELECT MAX(t.learning_rate) FROM trials t WHERE t.study_id = best_configs.study_id
                         AND t.purpose = 'learning_rate' AND t.batch_size = best_configs.batch_size) THEN 'above'
  WHEN learning_rate <= (SELECT MIN(t.learning_rate) FROM trials t WHERE t.study_id = best_configs.study_id
                         AND t.purpose = 'learning_rate' AND t.batch_size = best_configs.batch_size) THEN 'below'
  ELSE '' END
WHERE EXISTS (SELECT 1 FROM trials t WHERE t.study_id = best_configs.study_id AND t.purpose = 'learning_rate'
              AND t.batch_size = best_configs.batch_size);
)sql",
    // 5: what a table needs to trust a row: the budget of the search that chose a config, the learning-rate
    // horizon it afforded against the one asked for, and the screen's verdict on each study it timed (a dropped
    // study has no best config, and its row says why). Rows stored before recorded none of these: 0 and ''.
    R"sql(
ALTER TABLE best_configs ADD COLUMN search_budget_seconds REAL NOT NULL DEFAULT 0;
ALTER TABLE best_configs ADD COLUMN lr_horizon_steps INTEGER NOT NULL DEFAULT 0;
ALTER TABLE best_configs ADD COLUMN lr_horizon_wanted INTEGER NOT NULL DEFAULT 0;
CREATE TABLE screen_verdicts (
  study_id INTEGER PRIMARY KEY REFERENCES studies(id), batch_size INTEGER NOT NULL, kept INTEGER NOT NULL,
  reason TEXT NOT NULL, search_budget_seconds REAL NOT NULL,
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));
)sql",
    // 6: a trial's key holds its memory cap at three significant figures, not to the byte (trial_spec.cpp):
    // no column changes; Database::rekey_trials recomputes every stored key.
    "-- keys only",
    // 7: the matmul peak measured on an instance (by its fingerprint) under a libtorch at a precision, which the
    // table takes MFU against (instance/matmul_peak.h); studies and trials are unchanged.
    R"sql(
CREATE TABLE instance_peaks (
  fingerprint TEXT NOT NULL, libtorch_version TEXT NOT NULL, precision TEXT NOT NULL, flops REAL NOT NULL,
  method TEXT NOT NULL, measured_at TEXT NOT NULL, PRIMARY KEY (fingerprint, libtorch_version, precision));
)sql",
};
constexpr int kMigrationCount = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kMigrationCount == kSchemaVersion, "one migration per schema version");

// After schema 3's backfill: the text the parts replace, and the flag the batch limit replaces.
constexpr const char* kSchema3Drops = R"sql(
ALTER TABLE studies DROP COLUMN instance_fingerprint;
ALTER TABLE best_configs DROP COLUMN batch_capped_by_range;
)sql";

constexpr const char* kTrialColumns = "id, config_key, spec_json, result_json, trial_dir, finished_at";

StoredTrial read_trial(const Statement& s) {
  StoredTrial t;
  t.id = s.integer("id");
  t.spec = nlohmann::json::parse(s.text("spec_json")).get<TrialSpec>();
  t.result = nlohmann::json::parse(s.text("result_json")).get<TrialResult>();
  t.trial_dir = s.text("trial_dir");
  t.finished_at = s.text("finished_at");
  t.superseded = s.text("config_key").find('~') != std::string::npos;  // rekey_trials' suffix
  return t;
}

// Every selected column is named with AS: SQLite leaves a bare "s.model"'s result name unspecified.
constexpr const char* kStudyColumns =
    "s.id AS study_id, s.model AS model, s.model_config_hash AS model_config_hash, s.instance AS instance,"
    " s.device AS device, s.device_name AS device_name, s.memory_bytes AS memory_bytes, s.threads AS threads,"
    " s.device_count AS device_count, s.libtorch_version AS libtorch_version, s.tune_version AS tune_version,"
    " s.backend AS backend, s.precision AS precision, s.seq_len AS seq_len, s.step_options AS step_options";

StudyKey read_study_key(const Statement& s) {
  StudyKey k;
  k.model = s.text("model");
  k.model_config_hash = s.text("model_config_hash");
  k.instance = s.text("instance");
  k.hardware.device = s.text("device");
  k.hardware.device_name = s.text("device_name");
  k.hardware.memory_bytes = s.integer("memory_bytes");
  k.hardware.threads = static_cast<int>(s.integer("threads"));
  k.hardware.device_count = static_cast<int>(s.integer("device_count"));
  k.libtorch_version = s.text("libtorch_version");
  k.tune_version = s.text("tune_version");
  k.backend = s.text("backend");
  k.precision = s.text("precision");
  k.seq_len = static_cast<int>(s.integer("seq_len"));
  k.step_options = s.text("step_options");
  return k;
}

constexpr const char* kBestColumns =
    "b.batch_size AS batch_size, b.learning_rate AS learning_rate, b.samples_per_second AS samples_per_second,"
    " b.step_time AS step_time, b.compile_overhead_seconds AS compile_overhead_seconds,"
    " b.peak_memory_bytes AS peak_memory_bytes, b.lr_score_loss AS lr_score_loss, b.trials_run AS trials_run,"
    " b.step_time_ci_low AS step_time_ci_low, b.step_time_ci_high AS step_time_ci_high,"
    " b.flops_per_step AS flops_per_step, b.mfu AS mfu, b.batch_limit AS batch_limit,"
    " b.limit_batch_size AS limit_batch_size, b.limit_status AS limit_status, b.batch_stop AS batch_stop,"
    " b.lr_stop_cause AS lr_stop_cause, b.lr_stop AS lr_stop, b.lr_edge AS lr_edge, b.updated_at AS updated_at,"
    " b.search_budget_seconds AS search_budget_seconds, b.lr_horizon_steps AS lr_horizon_steps,"
    " b.lr_horizon_wanted AS lr_horizon_wanted";

BestConfig read_best(const Statement& s) {
  BestConfig b;
  b.batch_size = static_cast<int>(s.integer("batch_size"));
  b.learning_rate = s.real("learning_rate");
  b.samples_per_second = s.real("samples_per_second");
  b.step_time = s.real("step_time");
  b.compile_overhead_seconds = s.real("compile_overhead_seconds");
  b.peak_memory_bytes = s.integer("peak_memory_bytes");
  b.lr_score_loss = s.real("lr_score_loss");
  b.trials_run = static_cast<int>(s.integer("trials_run"));
  b.step_time_ci_low = s.real("step_time_ci_low");
  b.step_time_ci_high = s.real("step_time_ci_high");
  b.flops_per_step = s.real("flops_per_step");
  b.mfu = s.real("mfu");
  b.stop.batch_limit = parse_batch_limit(s.text("batch_limit"));
  b.stop.limit_batch_size = static_cast<int>(s.integer("limit_batch_size"));
  b.stop.limit_status = parse_trial_status(s.text("limit_status"));
  b.stop.batch_stop = s.text("batch_stop");
  b.stop.lr_cause = parse_stop_cause(s.text("lr_stop_cause"));
  b.stop.lr_stop = s.text("lr_stop");
  b.stop.lr_edge = parse_rate_edge(s.text("lr_edge"));
  b.stop.lr_horizon_steps = static_cast<int>(s.integer("lr_horizon_steps"));
  b.stop.lr_horizon_wanted = static_cast<int>(s.integer("lr_horizon_wanted"));
  b.search_budget_seconds = s.real("search_budget_seconds");
  return b;
}

constexpr const char* kPeakColumns = "fingerprint, libtorch_version, precision, flops, method, measured_at";

StoredPeak read_peak(const Statement& s) {
  return {s.text("fingerprint"), s.text("libtorch_version"), s.text("precision"),
          {s.real("flops"), s.text("method"), s.text("measured_at")}};
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
  return stable_hash(model + '\n' + model_config_hash + '\n' + instance + '\n' + hardware.fingerprint() + '\n' +
                     libtorch_version + '\n' + tune_version + '\n' + backend + '\n' + precision + '\n' +
                     std::to_string(seq_len) + options);
}

std::string step_options_key(const std::string& attention, const std::string& optimizer, int ranks) {
  return "attention=" + attention + ",optimizer=" + optimizer + (ranks > 1 ? ",ranks=" + std::to_string(ranks) : "");
}

std::string step_option(const std::string& step_options, const std::string& name) {
  const std::string field = "," + step_options + ",", wanted = "," + name + "=";
  const size_t at = field.find(wanted);
  if (at == std::string::npos) return "";
  const size_t from = at + wanted.size();
  return field.substr(from, field.find(',', from) - from);
}

StudyKey make_study_key(const std::string& model, const std::string& model_config_hash, const Instance& instance,
                        const std::string& libtorch_version, const std::string& backend, const std::string& precision,
                        int seq_len, const std::string& step_options) {
  StudyKey k;
  k.model = model;
  k.model_config_hash = model_config_hash;
  k.instance = instance.name;
  k.hardware = instance;
  k.libtorch_version = libtorch_version;
  k.tune_version = TUNE_VERSION;
  k.backend = backend;
  k.precision = precision;
  k.seq_len = seq_len;
  k.step_options = step_options;
  return k;
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
  return static_cast<int>(s.integer("user_version"));
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
    for (int v = version; v < kMigrationCount; ++v) {
      exec(kMigrations[v]);
      if (v == 2) {
        backfill_schema_3();
        exec(kSchema3Drops);
      }
      if (v == 5) rekey_trials();
    }
    exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

// Rows stored before schema 3: the hardware parsed from its fingerprint, the batch limit from each study's
// throughput trials as the tables of schema 2 derived it (store/schema3_backfill.h). Only ever run here.
void Database::backfill_schema_3() {
  backfill_hardware();
  backfill_batch_limits();
}

// Every stored key recomputed from its spec by this version's rule. Trials of a study that the new key no longer
// tells apart were measured on machines whose memory differed by kilobytes: the newest keeps the key (a rerun
// reuses it) and each older one keeps its row under the key and a suffix, so no measurement is lost and a merge
// of two stores migrated alike matches row for row. A spec this version cannot read keeps its stored key.
void Database::rekey_trials() {
  std::vector<std::pair<int64_t, std::string>> new_keys;
  std::set<std::pair<int64_t, std::string>> taken;
  for (Statement s(db_, "SELECT id, study_id, config_key, spec_json, result_json, finished_at FROM trials"
                        " ORDER BY finished_at DESC, id DESC");
       s.step();) {
    std::string key = s.text("config_key");
    try {
      key = nlohmann::json::parse(s.text("spec_json")).get<TrialSpec>().config_key();
    } catch (const std::exception&) {
    }
    const int64_t study = s.integer("study_id");
    if (taken.count({study, key})) key += "~" + stable_hash(s.text("finished_at") + s.text("result_json"));
    while (!taken.insert({study, key}).second) key += "~" + std::to_string(s.integer("id"));
    new_keys.emplace_back(s.integer("id"), key);
  }
  exec("UPDATE trials SET config_key = 'rekeying ' || id");  // no new key meets an old one while they change
  for (const auto& [id, key] : new_keys) {
    Statement u(db_, "UPDATE trials SET config_key = ? WHERE id = ?");
    u.bind(1, key).bind(2, id).step();
  }
}

void Database::backfill_hardware() {
  std::vector<std::pair<int64_t, std::string>> fingerprints;
  for (Statement s(db_, "SELECT id, instance_fingerprint FROM studies"); s.step();)
    fingerprints.emplace_back(s.integer("id"), s.text("instance_fingerprint"));
  for (const auto& [id, fingerprint] : fingerprints) {
    const InstanceHardware h = hardware_from_fingerprint(fingerprint);
    Statement u(db_, "UPDATE studies SET device = ?, device_name = ?, memory_bytes = ?, threads = ?, device_count = ?"
                     " WHERE id = ?");
    u.bind(1, h.device).bind(2, h.device_name).bind(3, h.memory_bytes).bind(4, h.threads).bind(5, h.device_count);
    u.bind(6, id).step();
  }
}

void Database::backfill_batch_limits() {
  std::vector<std::pair<int64_t, LegacyBest>> bests;
  for (Statement s(db_, "SELECT study_id, batch_size, samples_per_second, batch_capped_by_range FROM best_configs");
       s.step();)
    bests.push_back({s.integer("study_id"), {static_cast<int>(s.integer("batch_size")), s.real("samples_per_second"),
                                             s.integer("batch_capped_by_range") != 0}});
  std::map<int64_t, std::vector<LegacyTrial>> throughput;
  for (Statement s(db_, "SELECT study_id, batch_size, status, samples_per_second FROM trials"
                        " WHERE purpose = 'throughput'"); s.step();)
    throughput[s.integer("study_id")].push_back({static_cast<int>(s.integer("batch_size")),
                                                 parse_trial_status(s.text("status")), s.real("samples_per_second")});
  for (const auto& [id, best] : bests) {
    const StopReasons r = legacy_stop_reasons(best, throughput[id]);
    Statement u(db_, "UPDATE best_configs SET batch_limit = ?, limit_batch_size = ?, limit_status = ? WHERE study_id = ?");
    u.bind(1, to_string(r.batch_limit)).bind(2, r.limit_batch_size).bind(3, to_string(r.limit_status)).bind(4, id);
    u.step();
  }
}

int64_t Database::ensure_study(const StudyKey& k) {
  Statement insert(db_,
                   "INSERT OR IGNORE INTO studies (study_key, model, model_config_hash, instance, libtorch_version,"
                   " tune_version, backend, precision, seq_len, step_options, device, device_name, memory_bytes,"
                   " threads, device_count) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  insert.bind(1, k.key()).bind(2, k.model).bind(3, k.model_config_hash).bind(4, k.instance);
  insert.bind(5, k.libtorch_version).bind(6, k.tune_version).bind(7, k.backend).bind(8, k.precision);
  insert.bind(9, k.seq_len).bind(10, k.step_options).bind(11, k.hardware.device).bind(12, k.hardware.device_name);
  insert.bind(13, k.hardware.memory_bytes).bind(14, k.hardware.threads).bind(15, k.hardware.device_count);
  insert.step();
  Statement select(db_, "SELECT id FROM studies WHERE study_key = ?");
  select.bind(1, k.key());
  if (!select.step()) throw std::runtime_error("study vanished after insert in '" + path_ + "'");
  return select.integer("id");
}

std::optional<StoredTrial> Database::find_trial(int64_t study_id, const std::string& config_key) const {
  Statement s(db_, std::string("SELECT ") + kTrialColumns + " FROM trials WHERE study_id = ? AND config_key = ?");
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
  Statement s(db_, std::string("SELECT ") + kTrialColumns + " FROM trials WHERE study_id = ? ORDER BY id");
  s.bind(1, study_id);
  std::vector<StoredTrial> out;
  while (s.step()) out.push_back(read_trial(s));
  return out;
}

void Database::save_best(int64_t study_id, const BestConfig& b) {
  Statement s(db_,
              "INSERT OR REPLACE INTO best_configs (study_id, batch_size, learning_rate, samples_per_second, step_time,"
              " compile_overhead_seconds, peak_memory_bytes, lr_score_loss, trials_run, step_time_ci_low,"
              " step_time_ci_high, flops_per_step, mfu, batch_limit, limit_batch_size, limit_status, batch_stop,"
              " lr_stop_cause, lr_stop, lr_edge, search_budget_seconds, lr_horizon_steps, lr_horizon_wanted)"
              " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, study_id).bind(2, b.batch_size).bind(3, b.learning_rate).bind(4, b.samples_per_second);
  s.bind(5, b.step_time).bind(6, b.compile_overhead_seconds).bind(7, b.peak_memory_bytes).bind(8, b.lr_score_loss);
  s.bind(9, b.trials_run).bind(10, b.step_time_ci_low).bind(11, b.step_time_ci_high).bind(12, b.flops_per_step);
  s.bind(13, b.mfu).bind(14, to_string(b.stop.batch_limit)).bind(15, b.stop.limit_batch_size);
  s.bind(16, to_string(b.stop.limit_status)).bind(17, b.stop.batch_stop).bind(18, to_string(b.stop.lr_cause));
  s.bind(19, b.stop.lr_stop).bind(20, to_string(b.stop.lr_edge)).bind(21, b.search_budget_seconds);
  s.bind(22, b.stop.lr_horizon_steps).bind(23, b.stop.lr_horizon_wanted);
  s.step();
}

void Database::save_screen_verdict(int64_t study_id, const ScreenVerdict& v) {
  Statement s(db_,
              "INSERT OR REPLACE INTO screen_verdicts (study_id, batch_size, kept, reason, search_budget_seconds)"
              " VALUES (?,?,?,?,?)");
  s.bind(1, study_id).bind(2, v.batch_size).bind(3, v.kept ? 1 : 0).bind(4, v.reason).bind(5, v.search_budget_seconds);
  s.step();
}

std::optional<ScreenVerdict> Database::screen_verdict(int64_t study_id) const {
  Statement s(db_, "SELECT batch_size, kept, reason, search_budget_seconds FROM screen_verdicts WHERE study_id = ?");
  s.bind(1, study_id);
  if (!s.step()) return std::nullopt;
  return ScreenVerdict{static_cast<int>(s.integer("batch_size")), s.integer("kept") != 0, s.text("reason"),
                       s.real("search_budget_seconds")};
}

std::vector<ScreenedStudy> Database::screened_out() const {
  Statement s(db_, std::string("SELECT ") + kStudyColumns +
                       ", v.batch_size AS batch_size, v.reason AS reason, v.search_budget_seconds AS budget"
                       " FROM screen_verdicts v JOIN studies s ON s.id = v.study_id"
                       " WHERE v.kept = 0 AND NOT EXISTS (SELECT 1 FROM best_configs b WHERE b.study_id = s.id)"
                       " ORDER BY s.id");
  std::vector<ScreenedStudy> out;
  while (s.step()) {
    const ScreenVerdict verdict{static_cast<int>(s.integer("batch_size")), false, s.text("reason"), s.real("budget")};
    out.push_back({s.integer("study_id"), read_study_key(s), verdict});
  }
  return out;
}

std::vector<BestRow> Database::best_rows() const {
  Statement s(db_, std::string("SELECT ") + kStudyColumns + ", " + kBestColumns +
                       " FROM best_configs b JOIN studies s ON s.id = b.study_id"
                       " ORDER BY s.model, s.instance, s.precision, s.seq_len, s.step_options, s.backend");
  std::vector<BestRow> rows;
  while (s.step()) {
    BestRow r;
    r.study_id = s.integer("study_id");
    r.key = read_study_key(s);
    r.best = read_best(s);
    r.updated_at = s.text("updated_at");
    rows.push_back(r);
  }
  return rows;
}

std::vector<std::pair<int64_t, StudyKey>> Database::studies() const {
  Statement s(db_, std::string("SELECT ") + kStudyColumns + " FROM studies s ORDER BY s.id");
  std::vector<std::pair<int64_t, StudyKey>> out;
  while (s.step()) out.emplace_back(s.integer("study_id"), read_study_key(s));
  return out;
}

std::optional<BestConfig> Database::best(int64_t study_id) const {
  Statement s(db_, std::string("SELECT ") + kBestColumns + " FROM best_configs b WHERE b.study_id = ?");
  s.bind(1, study_id);
  if (!s.step()) return std::nullopt;
  return read_best(s);
}

void Database::save_peak(const StoredPeak& p) {
  Statement s(db_, std::string("INSERT OR REPLACE INTO instance_peaks (") + kPeakColumns + ") VALUES (?,?,?,?,?,?)");
  s.bind(1, p.fingerprint).bind(2, p.libtorch_version).bind(3, p.precision).bind(4, p.measured.flops);
  s.bind(5, p.measured.method).bind(6, p.measured.measured_at);
  s.step();
}

std::optional<StoredPeak> Database::peak(const std::string& fingerprint, const std::string& libtorch_version,
                                         const std::string& precision) const {
  Statement s(db_, std::string("SELECT ") + kPeakColumns +
                       " FROM instance_peaks WHERE fingerprint = ? AND libtorch_version = ? AND precision = ?");
  s.bind(1, fingerprint).bind(2, libtorch_version).bind(3, precision);
  if (!s.step()) return std::nullopt;
  return read_peak(s);
}

std::vector<StoredPeak> Database::peaks() const {
  Statement s(db_, std::string("SELECT ") + kPeakColumns +
                       " FROM instance_peaks ORDER BY fingerprint, libtorch_version, precision");
  std::vector<StoredPeak> out;
  while (s.step()) out.push_back(read_peak(s));
  return out;
}

}  // namespace tune
