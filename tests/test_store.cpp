// The SQLite store: schema version, round trips of trials and best configs (with their stop reasons), reuse
// by config key, migrations from schemas 1, 2, 5 and 6, clear errors for a file that is not a tune database, the
// measured peaks' store and reuse, and the `tune export` document of a store.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <fstream>
#include <iterator>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "store/database.h"
#include "store/export.h"
#include "store/instance_peaks.h"
#include "store/trial_lock.h"
#include "test_helpers.h"

using namespace tune;
using tune::testing::temp_dir;
using tune::testing::write_file;

namespace {

// Runs SQL on the file at path as another program (an older tune) would.
void exec_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

Instance test_instance() {
  Instance instance;
  instance.device_name = "test";
  instance.memory_bytes = 1LL << 30;
  instance.threads = 2;
  return instance;
}

StudyKey key(const std::string& backend) {
  StudyKey k = make_study_key("bert-tiny", "abc", test_instance(), "2.15.0", backend, "fp32", 32);
  k.tune_version = "0.1.0";
  return k;
}

BestConfig best_config(int batch, double lr, double samples_per_second, int trials_run) {
  BestConfig b;
  b.batch_size = batch;
  b.learning_rate = lr;
  b.samples_per_second = samples_per_second;
  b.step_time = batch / samples_per_second;
  b.compile_overhead_seconds = 1.5;
  b.peak_memory_bytes = 987654321;
  b.lr_score_loss = 6.2;
  b.trials_run = trials_run;
  return b;
}

TrialResult ok_result(double sps) {
  TrialResult r;
  r.status = TrialStatus::ok;
  r.samples_per_second = sps;
  r.step_time_median = 1 / sps;
  r.losses = {7.0, 6.5, 6.1};
  r.step_times = {0.1, 0.11};
  r.peak_memory_bytes = 123456789;
  return r;
}

}  // namespace

TEST(Store, CreatesVersionedSchema) {
  const auto dir = temp_dir("store");
  Database db((dir / "t.db").string());
  EXPECT_EQ(db.schema_version(), kSchemaVersion);
}

TEST(Store, TrialRoundTripAndReuseByKey) {
  const auto dir = temp_dir("store");
  const std::string path = (dir / "t.db").string();
  TrialSpec spec;
  spec.batch_size = 8;
  spec.learning_rate = 3e-4;
  {
    Database db(path);
    const int64_t study = db.ensure_study(key("eager"));
    EXPECT_EQ(study, db.ensure_study(key("eager")));
    EXPECT_NE(study, db.ensure_study(key("jit")));
    db.record_trial(study, spec, ok_result(12.5), "/runs/x");
  }
  Database db(path);  // reopened: committed data survives
  const int64_t study = db.ensure_study(key("eager"));
  const auto found = db.find_trial(study, spec.config_key());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->spec.batch_size, 8);
  EXPECT_DOUBLE_EQ(found->spec.learning_rate, 3e-4);
  EXPECT_EQ(found->result.status, TrialStatus::ok);
  EXPECT_DOUBLE_EQ(found->result.samples_per_second, 12.5);
  EXPECT_EQ(found->result.losses, (std::vector<double>{7.0, 6.5, 6.1}));
  EXPECT_EQ(found->trial_dir, "/runs/x");
  TrialSpec other = spec;
  other.batch_size = 16;
  EXPECT_FALSE(db.find_trial(study, other.config_key()).has_value());
}

TEST(Store, FailedTrialKeepsTypedStatus) {
  const auto dir = temp_dir("store");
  Database db((dir / "t.db").string());
  const int64_t study = db.ensure_study(key("jit"));
  TrialSpec spec;
  db.record_trial(study, spec, failed_result(TrialStatus::compile_error, "trace", "op not traceable"), "d");
  const auto trials = db.trials(study);
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].result.status, TrialStatus::compile_error);
  EXPECT_EQ(trials[0].result.error_stage, "trace");
}

TEST(Store, BestConfigRoundTrip) {
  const auto dir = temp_dir("store");
  Database db((dir / "t.db").string());
  const int64_t study = db.ensure_study(key("eager"));
  BestConfig best = best_config(16, 1e-4, 40.0, 9);
  best.stop.batch_limit = BatchLimit::memory;
  best.stop.limit_batch_size = 32;
  best.stop.limit_status = TrialStatus::oom;
  best.stop.batch_stop = "batch 32: oom (not enough memory)";
  best.stop.lr_cause = StopCause::budget;
  best.stop.lr_stop = "budget: the next trial (~2 s) does not fit the 1 s left";
  db.save_best(study, best);
  const auto rows = db.best_rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key.backend, "eager");
  EXPECT_EQ(rows[0].key.seq_len, 32);
  EXPECT_EQ(rows[0].key.hardware.fingerprint(), test_instance().fingerprint());
  EXPECT_EQ(rows[0].best.batch_size, 16);
  EXPECT_DOUBLE_EQ(rows[0].best.samples_per_second, 40.0);
  EXPECT_EQ(rows[0].best.peak_memory_bytes, 987654321);
  EXPECT_EQ(rows[0].best.trials_run, 9);
  const StopReasons& stop = rows[0].best.stop;
  EXPECT_EQ(stop.batch_limit, BatchLimit::memory);
  EXPECT_EQ(stop.limit_batch_size, 32);
  EXPECT_EQ(stop.limit_status, TrialStatus::oom);
  EXPECT_EQ(stop.batch_stop, best.stop.batch_stop);
  EXPECT_EQ(stop.lr_cause, StopCause::budget);
  EXPECT_EQ(stop.lr_stop, best.stop.lr_stop);
  EXPECT_FALSE(rows[0].best.batch_capped_by_range());
}

TEST(Store, BestConfigKeepsItsBudgetAndHorizon) {
  const auto dir = temp_dir("store");
  Database db((dir / "t.db").string());
  const int64_t study = db.ensure_study(key("eager"));
  BestConfig best = best_config(16, 1e-4, 40.0, 9);
  best.search_budget_seconds = 1800;
  best.stop.lr_horizon_steps = 4;
  best.stop.lr_horizon_wanted = 12;
  db.save_best(study, best);
  const auto stored = db.best(study);
  ASSERT_TRUE(stored);
  EXPECT_DOUBLE_EQ(stored->search_budget_seconds, 1800);
  EXPECT_EQ(stored->stop.lr_horizon_steps, 4);
  EXPECT_EQ(stored->stop.lr_horizon_wanted, 12);
}

TEST(Store, ScreenedOutStudiesAreThoseDroppedWithoutABestConfig) {
  const auto dir = temp_dir("store");
  Database db((dir / "t.db").string());
  const int64_t kept = db.ensure_study(key("eager")), dropped = db.ensure_study(key("jit")),
                searched_later = db.ensure_study(key("inductor"));
  db.save_screen_verdict(kept, {8, true, "kept: the fastest", 60});
  db.save_screen_verdict(dropped, {8, true, "kept: an earlier verdict", 60});
  db.save_screen_verdict(dropped, {8, false, "dropped: 62% of the fastest", 120});  // the latest verdict stands
  db.save_screen_verdict(searched_later, {8, false, "dropped: 70% of the fastest", 60});
  db.save_best(searched_later, best_config(8, 1e-4, 10.0, 3));  // a search chose a config after all
  const auto screened = db.screened_out();
  ASSERT_EQ(screened.size(), 1u);
  EXPECT_EQ(screened[0].study_id, dropped);
  EXPECT_EQ(screened[0].key.backend, "jit");
  EXPECT_EQ(screened[0].verdict.batch_size, 8);
  EXPECT_FALSE(screened[0].verdict.kept);
  EXPECT_EQ(screened[0].verdict.reason, "dropped: 62% of the fastest");
  EXPECT_DOUBLE_EQ(screened[0].verdict.search_budget_seconds, 120);
}

TEST(Store, CorruptFileIsAClearError) {
  const auto dir = temp_dir("store");
  const std::string path = write_file(dir / "junk.db", std::string(8192, 'x'));
  try {
    Database db(path);
    FAIL() << "opened a corrupt database";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(Store, NewerSchemaIsRefused) {
  const auto dir = temp_dir("store");
  const std::string path = (dir / "t.db").string();
  { Database db(path); }
  { Database db(path); }  // reopening an up-to-date database is fine
  ASSERT_EQ(std::system(("sqlite3 " + path + " 'PRAGMA user_version=99' 2>/dev/null || "
                         "python3 -c \"import sqlite3; c=sqlite3.connect('" + path +
                         "'); c.execute('PRAGMA user_version=99'); c.commit()\"").c_str()), 0);
  EXPECT_THROW(Database db(path), std::runtime_error);
}

// Schema 1's exact tables (tune before step options).
constexpr const char* kSchema1Tables = R"sql(
CREATE TABLE studies (id INTEGER PRIMARY KEY, study_key TEXT NOT NULL UNIQUE, model TEXT NOT NULL,
  model_config_hash TEXT NOT NULL, instance TEXT NOT NULL, instance_fingerprint TEXT NOT NULL,
  libtorch_version TEXT NOT NULL, tune_version TEXT NOT NULL, backend TEXT NOT NULL,
  precision TEXT NOT NULL, seq_len INTEGER NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));
CREATE TABLE trials (id INTEGER PRIMARY KEY, study_id INTEGER NOT NULL REFERENCES studies(id),
  config_key TEXT NOT NULL, purpose TEXT NOT NULL, batch_size INTEGER NOT NULL, learning_rate REAL NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok','oom','diverged','timeout','crashed','compile_error','invalid')),
  samples_per_second REAL, step_time REAL, peak_memory_bytes INTEGER, score_loss REAL,
  spec_json TEXT NOT NULL, result_json TEXT NOT NULL, trial_dir TEXT NOT NULL,
  finished_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')), UNIQUE (study_id, config_key));
CREATE TABLE best_configs (study_id INTEGER PRIMARY KEY REFERENCES studies(id), batch_size INTEGER NOT NULL,
  batch_capped_by_range INTEGER NOT NULL, learning_rate REAL NOT NULL, samples_per_second REAL NOT NULL,
  step_time REAL NOT NULL, compile_overhead_seconds REAL NOT NULL, peak_memory_bytes INTEGER NOT NULL,
  lr_score_loss REAL NOT NULL, trials_run INTEGER NOT NULL,
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));
)sql";

// A database written by schema 1: its tables, one study, one best row.
static void write_schema1_database(const std::string& path, const std::string& study_key) {
  const std::string sql = std::string(kSchema1Tables) + R"sql(
INSERT INTO studies (id, study_key, model, model_config_hash, instance, instance_fingerprint, libtorch_version,
  tune_version, backend, precision, seq_len) VALUES (7, ')sql" + study_key + R"sql(', 'bert-tiny', 'abc', 'cpu',
  'cpu:test|1.0 GiB|2 threads|x1', '2.15.0', '0.1.0', 'eager', 'fp32', 32);
INSERT INTO best_configs VALUES (7, 16, 0, 1e-3, 42.0, 0.38, 1.5, 1000, 6.2, 9, '2026-11-01T00:00:00Z');
PRAGMA user_version=1;
)sql";
  exec_sql(path, sql);
}

TEST(Store, MigratesSchema1KeepingStudiesAndBestConfigs) {
  const auto dir = temp_dir("store");
  const std::string path = (dir / "v1.db").string();
  write_schema1_database(path, key("eager").key());
  Database db(path);
  EXPECT_EQ(db.schema_version(), kSchemaVersion);
  const auto rows = db.best_rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key.step_options, kDefaultStepOptions);
  EXPECT_EQ(rows[0].best.batch_size, 16);
  EXPECT_DOUBLE_EQ(rows[0].best.samples_per_second, 42.0);
  EXPECT_DOUBLE_EQ(rows[0].best.mfu, 0.0);  // not measured by schema 1
  EXPECT_EQ(db.ensure_study(key("eager")), 7);  // the old study is found under its old key
  StudyKey sdpa = key("eager");
  sdpa.step_options = "attention=sdpa,optimizer=fused";
  EXPECT_NE(db.ensure_study(sdpa), 7);
}

TEST(Store, BestConfigKeepsConfidenceIntervalAndMfu) {
  const auto dir = temp_dir("store");
  Database db((dir / "t.db").string());
  const int64_t study = db.ensure_study(key("jit"));
  BestConfig best = best_config(8, 1e-4, 10.0, 5);
  best.step_time_ci_low = 0.78;
  best.step_time_ci_high = 0.83;
  best.flops_per_step = 3.1e12;
  best.mfu = 0.12;
  db.save_best(study, best);
  const auto rows = db.best_rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].best.step_time_ci_low, 0.78);
  EXPECT_DOUBLE_EQ(rows[0].best.step_time_ci_high, 0.83);
  EXPECT_DOUBLE_EQ(rows[0].best.flops_per_step, 3.1e12);
  EXPECT_DOUBLE_EQ(rows[0].best.mfu, 0.12);
}

TEST(Store, ReadingAnUpToDateStoreLeavesItsFileUnchanged) {
  const auto dir = temp_dir("store");
  const std::string path = (dir / "t.db").string();
  {
    Database db(path);
    db.save_best(db.ensure_study(key("eager")), best_config(16, 1e-4, 40.0, 9));
  }
  const auto bytes = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string before = bytes();
  {
    const Database db(path);  // what `tune table` does to a committed store under reports/
    EXPECT_EQ(db.best_rows().size(), 1u);
  }
  EXPECT_EQ(bytes(), before) << "opening the store rewrote it";
}

namespace {

// A database as schema 2 left it (schema 1's tables and schema 2's columns, by SQL): five studies whose batch
// searches ended each way, on a 4-device instance, with their throughput trials and best configs.
void write_schema2_database(const std::string& path) {
  std::string sql = std::string(kSchema1Tables) + R"sql(
ALTER TABLE studies ADD COLUMN step_options TEXT NOT NULL DEFAULT 'attention=math,optimizer=adamw';
ALTER TABLE best_configs ADD COLUMN step_time_ci_low REAL NOT NULL DEFAULT 0;
ALTER TABLE best_configs ADD COLUMN step_time_ci_high REAL NOT NULL DEFAULT 0;
ALTER TABLE best_configs ADD COLUMN flops_per_step REAL NOT NULL DEFAULT 0;
ALTER TABLE best_configs ADD COLUMN mfu REAL NOT NULL DEFAULT 0;
PRAGMA user_version=2;
)sql";
  struct Ramp {
    int batch;
    const char* status;
    double samples_per_second;
  };
  struct Study {
    std::vector<Ramp> ramp;
    int best_batch;
    bool capped;
  };
  const std::vector<Study> studies{
      {{{1, "ok", 10}, {2, "ok", 18}, {4, "ok", 30}, {8, "ok", 40}, {16, "oom", 0}}, 8, false},  // memory at 16
      {{{1, "ok", 12}, {2, "ok", 22}, {4, "ok", 38}}, 4, true},                                // range
      {{{1, "ok", 10}, {2, "ok", 18}, {4, "ok", 18.5}}, 4, false},                             // a plateau
      {{{1, "ok", 8}, {2, "ok", 15}}, 2, false},                                               // cut short
      {{{1, "ok", 7}, {2, "ok", 12}, {4, "timeout", 0}}, 2, false},                            // failure at 4
  };
  for (size_t i = 0; i < studies.size(); ++i) {
    const std::string id = std::to_string(i + 1);
    sql += "INSERT INTO studies (id, study_key, model, model_config_hash, instance, instance_fingerprint, "
           "libtorch_version, tune_version, backend, precision, seq_len) VALUES (" + id + ", 'k" + id + "', 'm" + id +
           "', 'h', 'cpu', 'cpu:Intel Xeon|7.8 GiB|2 threads|x4', '2.15.0', '0.1.0', 'eager', 'fp32', 32);\n";
    double best_speed = 0;
    for (const auto& r : studies[i].ramp) {
      TrialSpec spec;
      spec.batch_size = r.batch;
      TrialResult result;
      result.status = parse_trial_status(r.status);
      result.samples_per_second = r.samples_per_second;
      if (r.batch == studies[i].best_batch) best_speed = r.samples_per_second;
      sql += "INSERT INTO trials (study_id, config_key, purpose, batch_size, learning_rate, status, samples_per_second, "
             "spec_json, result_json, trial_dir) VALUES (" + id + ", '" + spec.config_key() + "', 'throughput', " +
             std::to_string(r.batch) + ", 1e-4, '" + r.status + "', " + std::to_string(r.samples_per_second) + ", '" +
             nlohmann::json(spec).dump() + "', '" + nlohmann::json(result).dump() + "', 'd');\n";
    }
    sql += "INSERT INTO best_configs (study_id, batch_size, batch_capped_by_range, learning_rate, samples_per_second, "
           "step_time, compile_overhead_seconds, peak_memory_bytes, lr_score_loss, trials_run) VALUES (" + id + ", " +
           std::to_string(studies[i].best_batch) + ", " + (studies[i].capped ? "1" : "0") + ", 1e-4, " +
           std::to_string(best_speed) + ", 0.1, 0, 0, 6.0, 4);\n";
  }
  exec_sql(path, sql);
}

}  // namespace

// Schema 3 stores what schema 2 only implied: the migration fills each study's hardware from its fingerprint
// and each best config's batch limit from its trials, as schema 2's table derived it on every read.
TEST(Store, MigratesSchema2FillingHardwareAndStopReasons) {
  const auto dir = temp_dir("store");
  const std::string path = (dir / "v2.db").string();
  write_schema2_database(path);
  Database db(path);
  EXPECT_EQ(db.schema_version(), kSchemaVersion);
  const auto rows = db.best_rows();
  ASSERT_EQ(rows.size(), 5u);
  const InstanceHardware& h = rows[0].key.hardware;
  EXPECT_EQ(h.device, "cpu");
  EXPECT_EQ(h.device_name, "Intel Xeon");
  EXPECT_EQ(h.memory_text(), "7.8 GiB");
  EXPECT_EQ(h.threads, 2);
  EXPECT_EQ(h.device_count, 4);
  EXPECT_EQ(h.fingerprint(), "cpu:Intel Xeon|7.8 GiB|2 threads|x4") << "the parts give the stored text back";
  std::map<std::string, StopReasons> by_model;
  for (const auto& row : rows) by_model[row.key.model] = row.best.stop;
  EXPECT_EQ(by_model["m1"].batch_limit, BatchLimit::memory);
  EXPECT_EQ(by_model["m1"].limit_batch_size, 16);
  EXPECT_EQ(by_model["m1"].limit_status, TrialStatus::oom);
  EXPECT_EQ(by_model["m2"].batch_limit, BatchLimit::range);
  EXPECT_EQ(by_model["m3"].batch_limit, BatchLimit::throughput);
  EXPECT_EQ(by_model["m4"].batch_limit, BatchLimit::budget);
  EXPECT_EQ(by_model["m5"].batch_limit, BatchLimit::failure);
  EXPECT_EQ(by_model["m5"].limit_batch_size, 4);
  EXPECT_EQ(by_model["m5"].limit_status, TrialStatus::timeout);
  EXPECT_EQ(by_model["m1"].batch_stop, "") << "schema 2 never stored the words: none are made up";
  EXPECT_EQ(db.trials(1).size(), 5u) << "every trial kept";
}

// Schema 6 keys a trial's memory cap at three significant figures. A schema-5 study holding one trial measured
// under two caps 68 KiB apart (two machines of one instance, keyed exactly then) keeps both rows, and the newer
// is the one a rerun finds.
TEST(Store, MigratesSchema5RekeyingTrialsAndKeepsBothMeasurementsOfOneKey) {
  const auto dir = temp_dir("store");
  const std::string path = (dir / "v5.db").string();
  TrialSpec older, newer;
  older.memory_limit_bytes = 21484591513;
  newer.memory_limit_bytes = 21484661145;
  ASSERT_EQ(older.config_key(), newer.config_key());
  int64_t study = 0;
  {
    Database db(path);
    study = db.ensure_study(key("eager"));
    db.record_trial(study, newer, ok_result(12.0), "new");
    exec_sql(path, "UPDATE trials SET config_key = 'exact-newer', finished_at = '2026-12-03T10:00:00Z'");
    db.record_trial(study, older, ok_result(10.0), "old");
  }
  exec_sql(path, "UPDATE trials SET config_key = 'exact-older', finished_at = '2026-12-02T17:49:00Z' "
                 "WHERE trial_dir = 'old'; DROP TABLE instance_peaks; PRAGMA user_version=5;");  // schema 7's table
  Database db(path);
  EXPECT_EQ(db.schema_version(), kSchemaVersion);
  EXPECT_EQ(db.trials(study).size(), 2u) << "both measurements kept";
  const auto found = db.find_trial(study, newer.config_key());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->trial_dir, "new") << "the newest measurement holds the key";
  EXPECT_DOUBLE_EQ(found->result.samples_per_second, 12.0);
}

namespace {

StoredPeak stored_peak(const Instance& instance, const std::string& precision, double flops,
                       const std::string& measured_at = "2026-12-05T10:00:00Z",
                       const std::string& libtorch = "2.15.0") {
  return {instance.fingerprint(), libtorch, precision, {flops, "torch.mm 2048x2048 " + precision, measured_at}};
}

// A measurement that stores a fixed peak for each precision it is asked for and counts its calls, as
// `tune instance --measure-peak` stores what it measures.
struct FakeMeasurement {
  Database& db;
  Instance instance;
  std::string libtorch = "2.15.0";
  std::vector<std::vector<std::string>> calls;
  MeasureMissingPeaks callback() {
    return [this](const std::vector<std::string>& precisions) {
      calls.push_back(precisions);
      for (const auto& p : precisions)
        db.save_peak(stored_peak(instance, p, p == "bf16" ? 2e11 : 1e11, "2026-12-05T10:00:00Z", libtorch));
    };
  }
};

}  // namespace

// A search's first call measures the precisions the store lacks and stores them; a second on the same instance
// and libtorch measures nothing; a changed instance (another thread count: another fingerprint) or another
// libtorch is measured again, and only what it lacks.
TEST(Store, MeasuredPeaksAreStoredAndReusedByFingerprint) {
  const auto dir = temp_dir("store");
  Database db((dir / "t.db").string());
  FakeMeasurement fake{db, test_instance()};
  const InstancePeaks first = stored_or_measured_peaks(db, fake.instance, "2.15.0", {"fp32", "bf16"}, fake.callback());
  ASSERT_EQ(fake.calls.size(), 1u);
  EXPECT_EQ(fake.calls[0], (std::vector<std::string>{"fp32", "bf16"}));
  EXPECT_EQ(first.measured_now, fake.calls[0]);
  EXPECT_DOUBLE_EQ(first.flops().fp32, 1e11);
  EXPECT_DOUBLE_EQ(first.flops().bf16, 2e11);
  EXPECT_EQ(first.flops().fp16, 0) << "not asked for, not measured";
  EXPECT_NE(first.flops().source.find("torch.mm 2048x2048 bf16"), std::string::npos) << first.flops().source;

  const InstancePeaks again = stored_or_measured_peaks(db, fake.instance, "2.15.0", {"fp32", "bf16"}, fake.callback());
  EXPECT_EQ(fake.calls.size(), 1u) << "the stored peaks were measured again";
  EXPECT_TRUE(again.measured_now.empty());
  EXPECT_DOUBLE_EQ(again.flops().bf16, 2e11);
  stored_or_measured_peaks(db, fake.instance, "2.15.0", {"bf16", "fp16"}, fake.callback());
  ASSERT_EQ(fake.calls.size(), 2u);
  EXPECT_EQ(fake.calls[1], std::vector<std::string>{"fp16"}) << "only the missing precision is measured";

  Instance changed = fake.instance;
  changed.threads = 1;
  FakeMeasurement other{db, changed};
  stored_or_measured_peaks(db, changed, "2.15.0", {"fp32"}, other.callback());
  EXPECT_EQ(other.calls.size(), 1u) << "a changed instance reused another's peak";
  FakeMeasurement newer{db, changed, "2.16.0"};
  EXPECT_DOUBLE_EQ(stored_or_measured_peaks(db, changed, "2.16.0", {"fp32"}, newer.callback()).flops().fp32, 1e11);
  EXPECT_EQ(newer.calls.size(), 1u) << "another libtorch reused this one's peak";
  EXPECT_EQ(db.peaks().size(), 5u);  // this instance's three, the changed one's under each libtorch
}

// A measurement that stores nothing (the device could not run it) leaves the precision without a peak: the caller
// falls back to the estimate, and the next call tries again.
TEST(Store, APeakTheMeasurementCouldNotStoreStaysMissing) {
  const auto dir = temp_dir("store");
  Database db((dir / "t.db").string());
  int calls = 0;
  const auto nothing = [&](const std::vector<std::string>&) { ++calls; };
  EXPECT_TRUE(stored_or_measured_peaks(db, test_instance(), "2.15.0", {"fp16"}, nothing).stored.empty());
  EXPECT_EQ(stored_or_measured_peaks(db, test_instance(), "2.15.0", {"fp16"}, nothing).flops().fp16, 0);
  EXPECT_EQ(calls, 2);
}

// Schema 7 adds the measured peaks' table; a schema-6 store keeps its studies, trials and best configs.
TEST(Store, MigratesSchema6KeepingDataAndAddingThePeaksTable) {
  const auto dir = temp_dir("store");
  const std::string path = (dir / "v6.db").string();
  int64_t study = 0;
  {
    Database db(path);
    study = db.ensure_study(key("eager"));
    TrialSpec spec;
    spec.batch_size = 8;
    db.record_trial(study, spec, ok_result(12.0), "d");
    db.save_best(study, best_config(8, 1e-4, 12.0, 1));
  }
  exec_sql(path, "DROP TABLE instance_peaks; PRAGMA user_version=6;");
  Database db(path);
  EXPECT_EQ(db.schema_version(), kSchemaVersion);
  ASSERT_EQ(db.best_rows().size(), 1u);
  EXPECT_EQ(db.best_rows()[0].best.batch_size, 8);
  EXPECT_EQ(db.trials(study).size(), 1u);
  EXPECT_TRUE(db.peaks().empty());
  db.save_peak(stored_peak(test_instance(), "fp32", 1e11));
  const auto peak = db.peak(test_instance().fingerprint(), "2.15.0", "fp32");
  ASSERT_TRUE(peak.has_value());
  EXPECT_DOUBLE_EQ(peak->measured.flops, 1e11);
  EXPECT_EQ(peak->measured.method, "torch.mm 2048x2048 fp32");
  EXPECT_EQ(peak->measured.measured_at, "2026-12-05T10:00:00Z");
  EXPECT_FALSE(db.peak(test_instance().fingerprint(), "2.15.0", "bf16").has_value());
  db.save_peak(stored_peak(test_instance(), "fp32", 1.2e11, "2026-12-06T10:00:00Z"));
  EXPECT_DOUBLE_EQ(db.peak(test_instance().fingerprint(), "2.15.0", "fp32")->measured.flops, 1.2e11) << "replaced";
  EXPECT_EQ(db.peaks().size(), 1u);
}

// `tune export`: a store with two studies (one with trials and a best config) comes out with its schema and
// version, every key field, the best config with its stop reasons, and the trials' spec and result as stored.
TEST(Store, ExportHoldsStudiesBestConfigsAndTrials) {
  const auto dir = temp_dir("store");
  const std::string path = (dir / "t.db").string();
  Database db(path);
  const int64_t eager = db.ensure_study(key("eager")), jit = db.ensure_study(key("jit"));
  TrialSpec spec;
  spec.batch_size = 8;
  spec.learning_rate = 3e-4;
  spec.purpose = TrialPurpose::throughput;
  db.record_trial(eager, spec, ok_result(12.5), "/runs/a");
  spec.batch_size = 16;
  db.record_trial(eager, spec, failed_result(TrialStatus::oom, "step", "out of memory"), "/runs/b");
  BestConfig best = best_config(8, 3e-4, 12.5, 2);
  best.stop.batch_limit = BatchLimit::memory;
  best.stop.limit_batch_size = 16;
  best.stop.limit_status = TrialStatus::oom;
  best.stop.lr_cause = StopCause::trial_cap;
  best.search_budget_seconds = 600;
  db.save_best(eager, best);
  db.save_screen_verdict(jit, {8, false, "dropped: 50% of the fastest", 600});
  db.save_peak(stored_peak(test_instance(), "fp32", 1e11));

  const nlohmann::json doc = export_database(db, path);
  ASSERT_EQ(doc["instance_peaks"].size(), 1u);
  EXPECT_EQ(doc["instance_peaks"][0]["fingerprint"], test_instance().fingerprint());
  EXPECT_EQ(doc["instance_peaks"][0]["precision"], "fp32");
  EXPECT_DOUBLE_EQ(doc["instance_peaks"][0]["flops_per_second"].get<double>(), 1e11);
  EXPECT_EQ(doc["schema"], "tune-export");
  EXPECT_EQ(doc["schema_version"], kExportSchemaVersion);
  EXPECT_EQ(doc["studies"][0]["best"]["search_budget_seconds"], 600);
  EXPECT_TRUE(doc["studies"][0]["screen"].is_null());
  EXPECT_EQ(doc["studies"][1]["screen"]["reason"], "dropped: 50% of the fastest");
  EXPECT_FALSE(doc["studies"][1]["screen"]["kept"].get<bool>());
  EXPECT_EQ(doc["database"], path);
  ASSERT_EQ(doc["studies"].size(), 2u);
  const auto& s = doc["studies"][0];
  EXPECT_EQ(s["id"], eager);
  EXPECT_EQ(doc["studies"][1]["id"], jit);
  EXPECT_TRUE(doc["studies"][1]["best"].is_null());
  EXPECT_TRUE(doc["studies"][1]["trials"].empty());
  EXPECT_EQ(s["model"], "bert-tiny");
  EXPECT_EQ(s["model_config_hash"], "abc");
  EXPECT_EQ(s["backend"], "eager");
  EXPECT_EQ(s["precision"], "fp32");
  EXPECT_EQ(s["seq_len"], 32);
  EXPECT_EQ(s["libtorch_version"], "2.15.0");
  EXPECT_EQ(s["tune_version"], "0.1.0");
  EXPECT_EQ(s["step_options"], kDefaultStepOptions);
  EXPECT_EQ(s["instance"], test_instance().name);
  EXPECT_EQ(s["hardware"]["device_name"], "test");
  EXPECT_EQ(s["hardware"]["memory_bytes"], 1LL << 30);
  EXPECT_EQ(s["hardware"]["threads"], 2);
  EXPECT_EQ(s["hardware"]["fingerprint"], test_instance().fingerprint());

  EXPECT_EQ(s["best"]["batch_size"], 8);
  EXPECT_DOUBLE_EQ(s["best"]["samples_per_second"].get<double>(), 12.5);
  EXPECT_EQ(s["best"]["peak_memory_bytes"], 987654321);
  EXPECT_EQ(s["best"]["stop"]["batch_limit"], "memory");
  EXPECT_EQ(s["best"]["stop"]["limit_batch_size"], 16);
  EXPECT_EQ(s["best"]["stop"]["limit_status"], "oom");
  EXPECT_EQ(s["best"]["stop"]["lr_cause"], "max_trials");

  ASSERT_EQ(s["trials"].size(), 2u);
  EXPECT_EQ(s["trials"][0]["spec"]["batch_size"], 8);
  EXPECT_EQ(s["trials"][0]["spec"]["purpose"], "throughput");
  EXPECT_EQ(s["trials"][0]["result"]["status"], "ok");
  EXPECT_DOUBLE_EQ(s["trials"][0]["result"]["samples_per_second"].get<double>(), 12.5);
  EXPECT_EQ(s["trials"][0]["trial_dir"], "/runs/a");
  EXPECT_FALSE(s["trials"][0]["finished_at"].get<std::string>().empty());
  EXPECT_EQ(s["trials"][1]["spec"]["batch_size"], 16);
  EXPECT_EQ(s["trials"][1]["result"]["status"], "oom");
  EXPECT_LT(s["trials"][0]["id"].get<int64_t>(), s["trials"][1]["id"].get<int64_t>());
}

namespace {

// A database with one study (backend) holding trials at these batch sizes (samples/s = 10 x batch) and a best.
std::string database_with(const std::filesystem::path& path, const std::string& backend, const std::vector<int>& batches,
                          double sps_scale = 10) {
  Database db(path.string());
  const int64_t study = db.ensure_study(key(backend));
  for (int batch : batches) {
    TrialSpec spec;
    spec.batch_size = batch;
    db.record_trial(study, spec, ok_result(sps_scale * batch), "/runs/" + std::to_string(batch));
  }
  db.save_best(study, best_config(batches.back(), 1e-3, sps_scale * batches.back(), static_cast<int>(batches.size())));
  ScreenVerdict verdict;
  verdict.batch_size = batches.front();
  db.save_screen_verdict(study, verdict);
  return path.string();
}

}  // namespace

TEST(StoreMerge, CopiesWhatIsMissingAndMergingTwiceAddsNothing) {
  const auto dir = temp_dir("merge");
  const std::string a = database_with(dir / "a.db", "eager", {4, 8}), b = database_with(dir / "b.db", "jit", {8, 16, 32});
  Database into((dir / "into.db").string());
  MergeCounts first = into.merge_from(a);
  EXPECT_EQ(first.studies_added, 1);
  EXPECT_EQ(first.trials_added, 2);
  first = into.merge_from(b);
  EXPECT_EQ(first.studies_added, 1);
  EXPECT_EQ(first.trials_added, 3);
  EXPECT_EQ(first.bests_added, 1);
  EXPECT_EQ(first.verdicts_added, 1);
  const MergeCounts again = into.merge_from(b);
  EXPECT_EQ(again.studies_added + again.trials_added + again.bests_added + again.verdicts_added, 0);
  EXPECT_EQ(again.trials_present, 3);
  ASSERT_EQ(into.best_rows().size(), 2u);
  const int64_t jit = into.ensure_study(key("jit"));
  ASSERT_EQ(into.trials(jit).size(), 3u);
  EXPECT_DOUBLE_EQ(into.trials(jit)[2].result.samples_per_second, 320);
  EXPECT_EQ(into.trials(jit)[2].trial_dir, "/runs/32");
  EXPECT_EQ(into.best(jit)->batch_size, 32);
  EXPECT_EQ(into.screen_verdict(jit)->batch_size, 8);
}

TEST(StoreMerge, AStudyMeasuredDifferentlyInBothIsRefusedAndNothingIsMerged) {
  const auto dir = temp_dir("merge");
  const std::string a = database_with(dir / "a.db", "eager", {4, 8});
  const std::string other = database_with(dir / "other.db", "eager", {4, 8}, 11);  // same key, other results
  database_with(dir / "other.db", "jit", {8});
  Database into((dir / "into.db").string());
  into.merge_from(a);
  try {
    into.merge_from(other);
    FAIL() << "a conflicting study was merged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bert-tiny eager fp32 seq 32"), std::string::npos) << e.what();
  }
  EXPECT_EQ(into.studies().size(), 1u) << "the jit study of the refused file was merged";
  EXPECT_THROW(into.merge_from((dir / "into.db").string()), std::invalid_argument);
}

// Measured peaks travel with a merge: new ones are added, and of two measurements of one key the later stands,
// whichever file is merged into which; merging a file again writes nothing.
TEST(StoreMerge, PeaksAreMergedAndTheLaterMeasurementStands) {
  const auto dir = temp_dir("merge");
  const std::string a = database_with(dir / "a.db", "eager", {4, 8}), b = database_with(dir / "b.db", "jit", {8});
  const Instance instance = test_instance();
  {
    Database db(a);
    db.save_peak(stored_peak(instance, "fp32", 1e11, "2026-12-05T10:00:00Z"));
    db.save_peak(stored_peak(instance, "bf16", 2e11, "2026-12-05T10:00:00Z"));
  }
  {
    Database db(b);
    db.save_peak(stored_peak(instance, "fp32", 1.3e11, "2026-12-06T09:00:00Z"));
  }
  Database into((dir / "into.db").string());
  EXPECT_EQ(into.merge_from(b).peaks_added, 1);
  EXPECT_EQ(into.merge_from(a).peaks_added, 1) << "bf16 is new; a's older fp32 does not replace b's";
  EXPECT_DOUBLE_EQ(into.peak(instance.fingerprint(), "2.15.0", "fp32")->measured.flops, 1.3e11);
  EXPECT_EQ(into.merge_from(a).peaks_added + into.merge_from(b).peaks_added, 0);
  Database other((dir / "other.db").string());
  other.merge_from(a);
  EXPECT_EQ(other.merge_from(b).peaks_added, 1) << "the later measurement replaces the earlier one";
  EXPECT_DOUBLE_EQ(other.peak(instance.fingerprint(), "2.15.0", "fp32")->measured.flops, 1.3e11);
  EXPECT_EQ(other.peaks().size(), 2u);
}

// Two holders of one trial's lock (two open file descriptions, as two processes have): the second waits until the
// first lets go and says so; another trial's lock is free meanwhile.
TEST(TrialLock, ASecondHolderOfTheSameTrialWaitsForTheFirst) {
  const std::string db = (temp_dir("trial-lock") / "t.db").string();
  std::ostringstream first_progress, second_progress, other_progress;
  auto first = std::make_unique<TrialLock>(db, 1, "abc", first_progress);
  EXPECT_FALSE(first->waited());
  const TrialLock other(db, 1, "another-trial", other_progress);
  EXPECT_FALSE(other.waited());
  bool second_waited = false;
  std::atomic<bool> started{false}, acquired{false};
  std::thread second([&] {
    started = true;
    second_waited = TrialLock(db, 1, "abc", second_progress).waited();
    acquired = true;
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // its first try (microseconds after start) failed
  EXPECT_FALSE(acquired) << "two holders of one trial's lock at once";
  first.reset();  // the first holder lets go
  second.join();
  EXPECT_TRUE(second_waited);
  EXPECT_NE(second_progress.str().find("waiting for it"), std::string::npos) << second_progress.str();
}

// A study's step options read back by name from the key step_options_key writes.
TEST(Store, AStepOptionReadsBackFromItsKey) {
  const std::string key = tune::step_options_key("sdpa", "fused");
  EXPECT_EQ(tune::step_option(key, "optimizer"), "fused");
  EXPECT_EQ(tune::step_option(key, "attention"), "sdpa");
  EXPECT_EQ(tune::step_option(key, "precision"), "");
  EXPECT_EQ(tune::step_option(tune::kDefaultStepOptions, "optimizer"), "adamw");
}
