// Builds the synthetic tested-models store through the Database API, the way the engine records
// trials and best configs, so the table code reads exactly what a real search leaves.
#include "table_fixture.h"

#include <vector>

#include "store/database.h"

namespace tune::testing {
namespace {

StudyKey study(const std::string& model, const std::string& backend, const std::string& precision = "fp32") {
  Instance instance;
  instance.device_name = kFixtureDeviceName;
  instance.memory_bytes = static_cast<int64_t>(7.8 * (1LL << 30));
  instance.threads = 2;
  StudyKey key = make_study_key(model, "hash-" + model, instance, "2.15.0", backend, precision, 128);
  key.tune_version = "0.1.0";
  return key;
}

TrialSpec spec(TrialPurpose purpose, int batch, double lr) {
  TrialSpec s;
  s.purpose = purpose;
  s.batch_size = batch;
  s.learning_rate = lr;
  s.seq_len = 128;
  s.train_steps = purpose == TrialPurpose::learning_rate ? 12 : 0;
  s.memory_limit_bytes = 6LL << 30;
  return s;
}

TrialResult result(TrialStatus status, double samples_per_second, double loss) {
  TrialResult r;
  r.status = status;
  r.samples_per_second = samples_per_second;
  r.step_time_median = samples_per_second > 0 ? 1 / samples_per_second : 0;
  r.score_loss = loss;
  r.peak_memory_bytes = static_cast<int64_t>(samples_per_second * 1e7);
  return r;
}

struct Ramp {
  int batch;
  TrialStatus status;
  double samples_per_second;
};

struct Sweep {
  double lr;
  TrialStatus status;
  double loss;
};

// Records a backend's ramp and sweep and its best config (the ramp's fastest size, the sweep's lowest loss).
void record_backend(Database& db, const StudyKey& key, const std::vector<Ramp>& ramp, const std::vector<Sweep>& sweep,
                    BestConfig best) {
  const int64_t id = db.ensure_study(key);
  const auto of_model = [&](TrialSpec s) {  // every fixture model is a tiny variant, as its name says
    s.model.name = key.model;
    s.model.tiny = true;
    return s;
  };
  for (const auto& r : ramp) {
    TrialResult measured = result(r.status, r.samples_per_second, 0);
    measured.compile_overhead_seconds = best.compile_overhead_seconds;  // each size's warm-up overhead alike
    db.record_trial(id, of_model(spec(TrialPurpose::throughput, r.batch, 1e-4)), measured, "d");
  }
  for (const auto& s : sweep)
    db.record_trial(id, of_model(spec(TrialPurpose::learning_rate, best.batch_size, s.lr)), result(s.status, 0, s.loss),
                    "d");
  best.trials_run = static_cast<int>(ramp.size() + sweep.size());
  db.save_best(id, best);
}

// A best config and what limited its batch (for memory and failure, the size that failed and how).
BestConfig best(int batch, BatchLimit limit, double lr, double samples_per_second, double overhead,
                int limit_batch = 0, TrialStatus limit_status = TrialStatus::ok) {
  BestConfig b;
  b.batch_size = batch;
  b.stop.batch_limit = limit;
  b.stop.limit_batch_size = limit_batch;
  b.stop.limit_status = limit_status;
  b.learning_rate = lr;
  b.samples_per_second = samples_per_second;
  b.step_time = batch / samples_per_second;
  b.compile_overhead_seconds = overhead;
  b.peak_memory_bytes = static_cast<int64_t>(samples_per_second * 1e7);
  return b;
}

}  // namespace

void write_table_fixture(const std::string& path) {
  Database db(path);
  const auto ok = TrialStatus::ok;
  record_backend(db, study("bert-tiny", "eager"),
                 {{1, ok, 10}, {2, ok, 18}, {4, ok, 30}, {8, ok, 40}, {16, TrialStatus::oom, 0}},
                 {{1e-4, ok, 6.5}, {3e-4, ok, 6.2}, {1e-3, TrialStatus::diverged, 0}},
                 best(8, BatchLimit::memory, 3e-4, 40, 0, 16, TrialStatus::oom));
  record_backend(db, study("bert-tiny", "jit"),
                 {{1, ok, 12}, {2, ok, 22}, {4, ok, 38}, {8, ok, 52}, {16, ok, 60}, {32, ok, 66}, {64, ok, 70}},
                 {{1e-4, ok, 6.4}, {3e-4, ok, 6.1}, {1e-3, ok, 6.3}}, best(64, BatchLimit::range, 3e-4, 70, 4.5));
  record_backend(db, study("gpt2-tiny", "eager"), {{1, ok, 8}, {2, ok, 14}, {4, ok, 20}, {8, ok, 19}},
                 {{1e-4, ok, 7.1}, {3e-4, ok, 6.9}}, best(4, BatchLimit::throughput, 3e-4, 20, 0));
  record_backend(db, study("gpt2-tiny", "jit"), {{1, ok, 7}, {2, ok, 12}, {4, TrialStatus::timeout, 0}},
                 {{1e-4, ok, 7.2}, {3e-4, ok, 7.0}},
                 best(2, BatchLimit::failure, 3e-4, 12, 2.0, 4, TrialStatus::timeout));
  // A ramp that went flat (its last size gained under 5%), stored so; a ramp the budget cut while still gaining.
  record_backend(db, study("t5-tiny", "eager"), {{1, ok, 10}, {2, ok, 18}, {4, ok, 18.5}},
                 {{1e-4, ok, 7.5}, {3e-4, ok, 7.3}}, best(4, BatchLimit::throughput, 3e-4, 18.5, 0));
  record_backend(db, study("t5-tiny", "jit"), {{1, ok, 8}, {2, ok, 15}}, {{1e-4, ok, 7.6}},
                 best(2, BatchLimit::budget, 1e-4, 15, 3.0));
  // A reference backend, faster than jit, that must never stand in the compiled column.
  record_backend(db, study("t5-tiny", "hf-eager"), {{1, ok, 20}, {2, ok, 30}, {4, ok, 29}}, {{1e-4, ok, 7.4}},
                 best(2, BatchLimit::throughput, 1e-4, 30, 0));
}

void add_regional_backend(const std::string& path) {
  Database db(path);
  const auto ok = TrialStatus::ok;
  record_backend(db, study("bert-tiny", "inductor:regional"), {{4, ok, 32}, {8, ok, 46}, {16, ok, 45}},
                 {{1e-4, ok, 6.4}, {3e-4, ok, 6.2}}, best(8, BatchLimit::throughput, 3e-4, 46, 1.5));
}

void add_screened_out_row(const std::string& path) {
  Database db(path);
  const int64_t eager = db.ensure_study(study("gpt2-tiny", "eager", "bf16"));
  db.record_trial(eager, spec(TrialPurpose::throughput, 8, 1e-4), result(TrialStatus::ok, 9, 0), "d");
  db.save_screen_verdict(eager, {8, false, "dropped: 45% of the fastest's samples/s (jit fp32)", 1800});
  const int64_t jit = db.ensure_study(study("gpt2-tiny", "jit", "bf16"));
  db.record_trial(jit, spec(TrialPurpose::throughput, 8, 1e-4), result(TrialStatus::timeout, 0, 0), "d");
  db.save_screen_verdict(jit, {8, false, "dropped: timeout: timed out after 27 s", 1800});
}

}  // namespace tune::testing
