// The answer in the user's own training library (issue 35): `tune export --emit FORMAT` on a copy of the committed
// table's store, each file loaded into the real library (transformers, accelerate, Lightning, torch) by
// tests/emitted/train_with_emitted.py, which trains a tiny BERT three steps with it and prints what the library
// took from the file; those values are checked against tune's answer. A field a library renames fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "cli_run.h"
#include "report/answer.h"
#include "report/config_emitters.h"
#include "test_helpers.h"
#include "trial/python_trial.h"
#include "util/paths.h"

using namespace tune;
using tune::testing::temp_dir;
namespace fs = std::filesystem;

namespace {

struct Emitted {
  RunAnswer answer;  // what tune answers from the store, computed here to check the files against
  fs::path dir;      // where `tune export --emit` wrote the files
};

// `hardware`: more flags (--devices, --max-memory), for the export and the answer alike.
Emitted emit_committed(const std::string& model, const std::string& hardware = "", AnswerOptions options = {}) {
  const fs::path dir = temp_dir("emitted-" + model), db = dir / "tested-models.db";
  fs::copy_file(fs::path(tune_home()) / "reports/tested-models.db", db);
  const auto run = tune::testing::tune_cli("export --db " + db.string() + " --model " + model + " " + hardware +
                                           " --emit hf,accelerate,lightning,pytorch --emit-dir " + (dir / "out").string());
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("## Answer: " + model), std::string::npos) << run.output;
  TestedModelsTable table = gather_tested_models(Database(db.string()), db.string());
  table.rows.erase(std::remove_if(table.rows.begin(), table.rows.end(), [&](const TableRow& row) { return row.model != model; }),
                   table.rows.end());
  const auto answer = answer_from(table, options);
  if (!answer) throw std::runtime_error("no answer for " + model);
  return {*answer, dir / "out"};
}

// The library's values, from the script's key=value lines; "output" holds everything it printed.
std::map<std::string, std::string> train_with(const std::string& format, const Emitted& e) {
  const fs::path file = e.dir / emitted_file_name(format, e.answer.model);
  const fs::path script = fs::path(tune_home()) / "tests/emitted/train_with_emitted.py";
  const auto run = tune::testing::run_command(python_executable() + " " + script.string() + " " + format + " " +
                                              file.string() + " 2>&1");
  std::map<std::string, std::string> values{{"output", run.output}, {"exit", std::to_string(run.exit_code)}};
  std::istringstream lines(run.output);
  for (std::string line; std::getline(lines, line);)
    if (const size_t eq = line.find('='); eq != std::string::npos && line.find(' ') > eq)
      values[line.substr(0, eq)] = line.substr(eq + 1);
  return values;
}

double number(const std::map<std::string, std::string>& v, const std::string& key) {
  return v.count(key) ? std::stod(v.at(key)) : -1;
}

using Values = std::map<std::string, std::string>;

// Every format trains three steps at the answer's batch and rate, in its precision, compiling exactly when the
// answer compiles. Returns each format's values.
std::map<std::string, Values> expect_each_library_trains_it(const Emitted& e) {
  const RunAnswer& a = e.answer;
  std::map<std::string, Values> all;
  for (const char* format : {"hf", "accelerate", "lightning", "pytorch"}) {
    const Values v = all[format] = train_with(format, e);
    EXPECT_EQ(v.at("exit"), "0") << format << ":\n" << v.at("output");
    EXPECT_EQ(v.count("steps") ? v.at("steps") : "", "3") << format;
    EXPECT_EQ(v.count("loss_finite") ? v.at("loss_finite") : "", "True") << format;
    const bool hf = format == std::string("hf");
    EXPECT_EQ(number(v, hf ? "per_device_train_batch_size" : "batch_size"), a.per_device_batch) << format;
    EXPECT_EQ(number(v, hf ? "gradient_accumulation_steps" : "gradient_accumulation"), a.gradient_accumulation) << format;
    EXPECT_NEAR(number(v, "learning_rate"), a.job_learning_rate, 1e-5 * a.job_learning_rate) << format;  // .py: 6 digits
    EXPECT_EQ(number(v, "compiled_graphs") > 0, a.compile) << format << ": " << v.at("output");
  }
  return all;
}

std::string value(const std::map<std::string, Values>& all, const std::string& format, const std::string& key) {
  const Values& v = all.at(format);
  return v.count(key) ? v.at(key) : "(not printed)";
}

}  // namespace

// bert-base-cased's stored answer runs eager (no difference within the noise), bf16, AdamW with a cosine schedule.
TEST(EmittedConfig, EachLibraryTrainsWithTheStoredEagerAnswer) {
  const Emitted e = emit_committed("bert-base-cased");
  ASSERT_FALSE(e.answer.compile);
  ASSERT_EQ(e.answer.precision, "bf16");
  const auto all = expect_each_library_trains_it(e);
  EXPECT_EQ(value(all, "hf", "bf16"), "True");
  EXPECT_EQ(value(all, "hf", "lr_scheduler_type"), "cosine");
  EXPECT_DOUBLE_EQ(number(all.at("hf"), "warmup_steps"), e.answer.warmup_share);
  EXPECT_EQ(value(all, "hf", "optim"), "adamw_torch");
  EXPECT_DOUBLE_EQ(number(all.at("hf"), "optimizer_weight_decay"), 0.01);
  EXPECT_DOUBLE_EQ(number(all.at("hf"), "max_grad_norm"), 0.0) << "tune's trials do not clip gradients";
  EXPECT_EQ(value(all, "lightning", "precision"), "bf16-mixed");
  EXPECT_EQ(value(all, "accelerate", "mixed_precision"), "bf16");
  EXPECT_EQ(value(all, "accelerate", "device"), "cpu");
  EXPECT_EQ(value(all, "pytorch", "precision"), "bf16");
}

// The first full-size model whose stored answer compiles with Inductor (roberta-base: 1.31x, paired, when this was
// written): each library compiles the tiny model.
TEST(EmittedConfig, EachLibraryCompilesWithTheStoredInductorAnswer) {
  const fs::path copy = temp_dir("emitted-pick") / "tested-models.db";
  fs::copy_file(fs::path(tune_home()) / "reports/tested-models.db", copy);
  const TestedModelsTable stored = gather_tested_models(Database(copy.string()), copy.string());
  std::string model;
  for (const TableRow& row : stored.rows) {
    TestedModelsTable one{"", {}};
    for (const TableRow& other : stored.rows)
      if (other.model == row.model) one.rows.push_back(other);
    const auto answer = answer_from(one, AnswerOptions{});
    if (!row.tiny && answer && answer->compile && answer->backend.rfind("inductor", 0) == 0) {
      model = row.model;
      break;
    }
  }
  ASSERT_FALSE(model.empty()) << "no committed answer compiles with Inductor: this test needs one";
  const Emitted e = emit_committed(model);
  ASSERT_TRUE(e.answer.compile) << e.answer.compile_reason;
  const auto all = expect_each_library_trains_it(e);
  EXPECT_EQ(value(all, "hf", "torch_compile_backend"), torch_compile_call(e.answer.backend).backend);
  EXPECT_EQ(value(all, "accelerate", "dynamo_backend"), "inductor");
}

// A device that holds less than bert-base-cased's batch 16 measured: each device steps 8 and accumulates 2, the
// effective batch and the rate unchanged, in every library.
TEST(EmittedConfig, EachLibraryAccumulatesWhereTheMemoryCutsTheBatch) {
  const Emitted plain = emit_committed("bert-base-cased");
  int64_t eight = 0;
  const fs::path db = plain.dir.parent_path() / "tested-models.db";
  for (const TableRow& row : gather_tested_models(Database(db.string()), db.string()).rows)
    if (row.model == "bert-base-cased" && row.precision == plain.answer.precision)
      for (const BatchPoint& p : row.native_result()->batch_curve)
        if (p.batch_size == 8) eight = p.peak_memory_bytes;
  ASSERT_GT(eight, 0);
  const Emitted e = emit_committed("bert-base-cased", "--max-memory " + std::to_string(eight),
                                   AnswerOptions{JobLength{}, 0.1, 1, eight});
  ASSERT_EQ(e.answer.per_device_batch, 8);
  ASSERT_EQ(e.answer.gradient_accumulation, 2);
  ASSERT_EQ(e.answer.job_learning_rate, e.answer.learning_rate);
  expect_each_library_trains_it(e);
}
