// The trial spec's identity: every field of its JSON has a written decision (part of the key or not), keys of
// trials stored by earlier versions are what this version computes (so a rerun reuses them), and the JSON keeps
// its flat form.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <set>

#include "trial/lr_schedule.h"
#include "trial/trial_result.h"
#include "trial/trial_spec.h"
#include "util/paths.h"

using namespace tune;

namespace {

// (config_key, spec_json) of every trial in a store, read as stored, without opening it as a tune database.
std::vector<std::pair<std::string, std::string>> stored_keys(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return rows;
  }
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT config_key, spec_json FROM trials", -1, &s, nullptr);
  while (s && sqlite3_step(s) == SQLITE_ROW)
    rows.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)),
                      reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

}  // namespace

// A field added to the spec reaches spec.json (or no trial process would see it): here it must be given a rule.
TEST(TrialSpec, EveryFieldHasAKeyDecision) {
  const nlohmann::json spec = TrialSpec{};
  std::set<std::string> decided;
  for (const auto& field : spec_key_fields()) {
    EXPECT_TRUE(decided.insert(field.name).second) << field.name << " is decided twice";
    EXPECT_TRUE(spec.contains(field.name)) << field.name << " is decided but is no field of the spec";
  }
  for (const auto& [name, value] : spec.items())
    EXPECT_TRUE(decided.count(name)) << "spec field '" << name << "' has no key decision (trial_spec.cpp)";
}

TEST(TrialSpec, WhatDefinesTheResultChangesTheKeyAndPatienceDoesNot) {
  TrialSpec base;
  TrialSpec other = base;
  other.timeout_seconds = 5;
  EXPECT_EQ(other.config_key(), base.config_key());
  other = base;
  other.data.corpus_path = "synthetic";
  EXPECT_NE(other.config_key(), base.config_key());
  other = base;
  other.paired.rounds = 3;  // only a paired trial has rounds
  EXPECT_EQ(other.config_key(), base.config_key());
  other.purpose = TrialPurpose::paired;
  TrialSpec paired = base;
  paired.purpose = TrialPurpose::paired;
  EXPECT_NE(other.config_key(), paired.config_key());
  other = base;
  other.repeat = 1;  // a confirmation round's repeat is a trial of its own; repeat 0 keeps the keys stored before it
  EXPECT_NE(other.config_key(), base.config_key());
  EXPECT_EQ(nlohmann::json(other).get<TrialSpec>().repeat, 1);
}

// The cap is a share of the machine's memory, which moved by 68 KiB between two machines of one instance.
TEST(TrialSpec, TheMemoryCapIsKeyedAtThreeSignificantFigures) {
  TrialSpec a;
  a.memory_limit_bytes = 21484591513;
  TrialSpec b = a;
  b.memory_limit_bytes = 21484661145;
  EXPECT_EQ(a.config_key(), b.config_key());
  b.memory_limit_bytes = 4LL << 30;
  EXPECT_NE(a.config_key(), b.config_key());
  TrialSpec uncapped = a, small = a;
  uncapped.memory_limit_bytes = 0;
  small.memory_limit_bytes = 64LL << 20;
  EXPECT_NE(uncapped.config_key(), small.config_key());
}

// The committed stores hold trials of earlier tune versions, migrated: their stored keys are this version's keys
// (an older measurement of a key that the migration merged keeps it with a suffix, "KEY~...").
TEST(TrialSpec, KeysOfCommittedTrialsAreUnchanged) {
  size_t checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::filesystem::path(tune_home()) / "reports")) {
    if (entry.path().extension() != ".db") continue;
    for (const auto& [key, spec_json] : stored_keys(entry.path().string())) {
      EXPECT_EQ(nlohmann::json::parse(spec_json).get<TrialSpec>().config_key(), key.substr(0, key.find('~')))
          << entry.path() << ": " << spec_json;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u) << "the committed stores hold this many trials";
}

TEST(TrialSpec, JsonIsFlatAndRoundTrips) {
  TrialSpec s;
  s.step.backend = "jit";
  s.measure.warmup_steps = 7;
  s.data.tokenizer_dir = "/tok";
  s.paired.backends = {"eager"};
  s.test.inject_slowdown = 0.25;
  const nlohmann::json j = s;
  EXPECT_EQ(j.at("backend"), "jit");
  EXPECT_EQ(j.at("warmup_steps"), 7);
  EXPECT_EQ(j.at("tokenizer_dir"), "/tok");
  EXPECT_EQ(j.at("paired_backends"), nlohmann::json::array({"eager"}));
  EXPECT_EQ(j.at("inject_slowdown"), 0.25);
  const TrialSpec back = j.get<TrialSpec>();
  EXPECT_EQ(nlohmann::json(back), j);
}

// A name JSON does not know is an error quoting it, never the enum's first value: a corrupt or newer result is
// not read as an ok trial, nor a spec as a throughput trial.
TEST(TrialSpec, UnknownStatusOrPurposeNamesAreErrorsNotDefaults) {
  nlohmann::json result = TrialResult{};
  result["status"] = "exploded";
  try {
    result.get<TrialResult>();
    FAIL() << "read an unknown status";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'exploded'"), std::string::npos) << e.what();
  }
  nlohmann::json spec = TrialSpec{};
  spec["purpose"] = "benchmark";
  EXPECT_THROW(spec.get<TrialSpec>(), std::invalid_argument);
  EXPECT_EQ(nlohmann::json(TrialStatus::compile_error), "compile_error");
}

// The schedule's factor: linear warm-up to the peak, then constant or cosine down to zero at the last step.
TEST(LrSchedule, WarmsUpLinearlyThenHoldsOrDecaysByCosine) {
  EXPECT_DOUBLE_EQ(lr_schedule_factor("cosine", 4, 12, 0), 0.25);
  EXPECT_DOUBLE_EQ(lr_schedule_factor("cosine", 4, 12, 3), 1.0);
  EXPECT_DOUBLE_EQ(lr_schedule_factor("cosine", 4, 12, 4), 1.0);
  EXPECT_NEAR(lr_schedule_factor("cosine", 4, 12, 8), 0.5, 1e-12);  // halfway through the decay
  EXPECT_DOUBLE_EQ(lr_schedule_factor("constant", 4, 12, 11), 1.0);
  EXPECT_DOUBLE_EQ(lr_schedule_factor("constant", 0, 12, 0), 1.0);
  TrialSpec spec;
  spec.purpose = TrialPurpose::learning_rate;
  spec.train_steps = 12;
  spec.learning_rate = 1e-3;
  EXPECT_TRUE(scheduled_learning_rates(spec, 0, 12).empty()) << "a constant rate sets nothing";
  spec.lr_schedule = "cosine";
  const auto rates = scheduled_learning_rates(spec, 10, 2);
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_NEAR(rates[0], 1e-3 * lr_schedule_factor("cosine", 0, 12, 10), 1e-15);
  EXPECT_THROW(check_lr_schedule("linear"), std::invalid_argument);
}

// The schedule is part of what a learning-rate trial measures; a spec without one keeps its stored key.
TEST(LrSchedule, KeysTheTrialOnlyWhenNotConstant) {
  TrialSpec spec;
  const std::string constant = spec.config_key();
  spec.lr_schedule = "cosine";
  EXPECT_NE(spec.config_key(), constant);
  spec.lr_schedule = "constant";
  spec.lr_warmup_steps = 2;
  EXPECT_NE(spec.config_key(), constant);
  const TrialSpec round_trip = nlohmann::json(spec).get<TrialSpec>();
  EXPECT_EQ(round_trip.lr_warmup_steps, 2);
}
