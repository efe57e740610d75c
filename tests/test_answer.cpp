// The answer a person acts on (report/answer.h) and its files (report/config_emitters.h), on a copy of the committed
// table's store: the config to run is its row's searched best, compiled only on a paired "faster" and a job past the
// break-even, and a file says what its library cannot express.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "report/answer.h"
#include "report/config_emitters.h"
#include "test_helpers.h"
#include "util/paths.h"
#include "util/table_format.h"

using namespace tune;
using tune::testing::temp_dir;

namespace {

constexpr double kWarmupShare = 0.1;  // configs/search.yaml's lr_warmup_share, which the committed searches ran with

const TestedModelsTable& committed_table() {
  static const TestedModelsTable table = [] {
    const auto copy = temp_dir("answer") / "tested-models.db";
    std::filesystem::copy_file(std::filesystem::path(tune_home()) / "reports/tested-models.db", copy);
    const Database db(copy.string());
    return gather_tested_models(db, "reports/tested-models.db");
  }();
  return table;
}

TestedModelsTable rows_of(const std::string& model) {
  TestedModelsTable table;
  for (const TableRow& row : committed_table().rows)
    if (row.model == model) table.rows.push_back(row);
  return table;
}

const TableRow& row_of(const TestedModelsTable& table, const std::string& precision) {
  for (const TableRow& row : table.rows)
    if (row.precision == precision) return row;
  throw std::runtime_error("no " + precision + " row");
}

std::string emitted(const std::string& format, const RunAnswer& answer) {
  std::ostringstream out;
  pick_reporter("emitted config", format, config_emitters())->write(out, answer);
  return out.str();
}

}  // namespace

// Every full-size model's answer is its precision row's searched best: eager's, or the compiled backend's exactly
// where the paired verdict says faster; and no other precision's config to run is faster.
TEST(Answer, EachCommittedModelsAnswerIsItsFastestRowsSearchedBest) {
  int answered = 0, compiled = 0;
  for (const char* model : {"bert-base-cased", "gpt2", "roberta-base", "t5-base", "xlm-roberta-base"}) {
    const TestedModelsTable table = rows_of(model);
    const auto answer = answer_from(table, AnswerOptions{JobLength{}, kWarmupShare});
    ASSERT_TRUE(answer) << model;
    const TableRow& row = row_of(table, answer->precision);
    const bool faster = row.is_confirmed() && row.confirmed.verdict == PairedVerdict::faster;
    EXPECT_EQ(answer->compile, faster) << model;
    const BackendResult& run = faster ? *row.compiled_result() : *row.native_result();
    EXPECT_EQ(answer->backend, run.backend) << model;
    EXPECT_EQ(answer->batch_size, run.best.batch_size) << model;
    EXPECT_DOUBLE_EQ(answer->learning_rate, run.best.learning_rate) << model;
    EXPECT_EQ(answer->lr_schedule, "cosine") << model;
    EXPECT_DOUBLE_EQ(answer->warmup_share, kWarmupShare) << model;
    EXPECT_GT(answer->rate_steps, 0) << model;
    for (const TableRow& other : table.rows)
      if (other.precision != answer->precision && other.native_result())
        if (const auto alone = answer_from(TestedModelsTable{"", {other}}, AnswerOptions{JobLength{}, kWarmupShare}))
          EXPECT_LE(alone->samples_per_second, answer->samples_per_second) << model << " " << other.precision;
    ++answered, compiled += answer->compile;
  }
  EXPECT_EQ(answered, 5);
  EXPECT_GE(compiled, 1) << "the committed table has rows where compiling pays (roberta-base, xlm-roberta-base)";
}

// roberta-base's bf16 row: inductor 1.31x (paired), a break-even of a few hundred steps. A job shorter than it
// stays eager and says so; a longer one compiles.
TEST(Answer, AJobShorterThanTheBreakEvenStaysEager) {
  const TestedModelsTable table = rows_of("roberta-base");
  const auto open = answer_from(table, AnswerOptions{JobLength{}, kWarmupShare});
  ASSERT_TRUE(open && open->compile) << (open ? open->compile_reason : "no answer");
  const TableRow& row = row_of(table, open->precision);
  const double break_even = row.confirmed_amortization.break_even_steps;
  ASSERT_GT(break_even, 10);
  const auto short_job = answer_from(table, AnswerOptions{JobLength{break_even / 4, 0}, kWarmupShare});
  ASSERT_TRUE(short_job);
  EXPECT_FALSE(short_job->compile);
  EXPECT_EQ(short_job->backend, "eager");
  EXPECT_NE(short_job->compile_reason.find("shorter than the break-even"), std::string::npos) << short_job->compile_reason;
  const auto long_job = answer_from(table, AnswerOptions{JobLength{break_even * 4, 0}, kWarmupShare});
  ASSERT_TRUE(long_job);
  EXPECT_TRUE(long_job->compile);
  EXPECT_EQ(long_job->backend, row.compiled_result()->backend);
  // --job-hours: steps at the compiled config's speed.
  const BestConfig& compiled = row.compiled_result()->best;
  const double hours_per_step = compiled.batch_size / compiled.samples_per_second / 3600;
  EXPECT_FALSE(answer_from(table, AnswerOptions{JobLength{0, break_even / 4 * hours_per_step}, kWarmupShare})->compile);
  EXPECT_TRUE(answer_from(table, AnswerOptions{JobLength{0, break_even * 4 * hours_per_step}, kWarmupShare})->compile);
}

// A value the search did not really find travels with the answer: gpt2's best vs best is uneven (inductor's ramp
// was cut below eager's batch), and the answer says so in its lines and in each file.
TEST(Answer, WhatTheSearchDidNotFindIsSaidInTheAnswerAndItsFiles) {
  const auto answer = answer_from(rows_of("gpt2"), AnswerOptions{JobLength{}, kWarmupShare});
  ASSERT_TRUE(answer);
  std::string marks;
  for (const auto& mark : answer->marks) marks += mark + "\n";
  EXPECT_NE(marks.find("best vs best is uneven"), std::string::npos) << marks;
  std::ostringstream lines;
  write_answer(lines, *answer, {"the full table: t.md"}, "tune --model gpt2 --budget 40m");
  EXPECT_NE(lines.str().find("- caveat: best vs best is uneven"), std::string::npos) << lines.str();
  EXPECT_NE(lines.str().find("- the full table: t.md"), std::string::npos) << lines.str();
  for (const char* format : {"accelerate", "lightning", "pytorch"})
    EXPECT_NE(emitted(format, *answer).find("# caveat: best vs best is uneven"), std::string::npos) << format;
}

// distilbert-sst2's answer compiles with jit, which torch.compile has no backend for: the HF file trains eager and
// says why in the one free-text field TrainingArguments takes (run_name); the Python files say it in a comment.
TEST(Answer, AFileSaysWhatItsLibraryCannotExpress) {
  const auto answer = answer_from(rows_of("distilbert-base-uncased-finetuned-sst-2-english"), AnswerOptions{JobLength{}, kWarmupShare});
  ASSERT_TRUE(answer);
  ASSERT_TRUE(answer->compile);
  ASSERT_EQ(answer->backend, "jit");
  const auto hf = nlohmann::json::parse(emitted("hf", *answer));
  EXPECT_FALSE(hf["torch_compile"].get<bool>());
  EXPECT_NE(hf["run_name"].get<std::string>().find("torch.compile has no backend for"), std::string::npos) << hf.dump(1);
  EXPECT_EQ(hf["per_device_train_batch_size"], answer->batch_size);
  EXPECT_NE(emitted("pytorch", *answer).find("COMPILE = False"), std::string::npos);
  EXPECT_NE(emitted("pytorch", *answer).find("# tune's pick is jit"), std::string::npos);
  EXPECT_EQ(emitted("accelerate", *answer).find("dynamo_config"), std::string::npos);
}

// The torch.compile call of each label: Inductor's modes pass through, a regional or dynamic compile says how the
// library's whole-model compile differs.
TEST(Answer, EachBackendLabelMapsToItsTorchCompileCall) {
  EXPECT_EQ(torch_compile_call("inductor").backend, "inductor");
  EXPECT_EQ(torch_compile_call("inductor").mode, "");
  EXPECT_EQ(torch_compile_call("inductor:max-autotune-no-cudagraphs").mode, "max-autotune-no-cudagraphs");
  EXPECT_NE(torch_compile_call("inductor:regional").note.find("compile_regions"), std::string::npos);
  EXPECT_NE(torch_compile_call("inductor:dynamic").note.find("dynamic=True"), std::string::npos);
  EXPECT_EQ(torch_compile_call("jit").backend, "");
  EXPECT_EQ(torch_compile_call("cuda-graph").backend, "cudagraphs");
  EXPECT_EQ(torch_compile_call("eager").backend, "");
}

namespace {

int64_t peak_at(const BackendResult& run, int batch) {
  for (const BatchPoint& p : run.batch_curve)
    if (p.batch_size == batch) return p.peak_memory_bytes;
  return 0;
}

}  // namespace

// The user's hardware: the effective batch is kept over devices and accumulation where it divides, the rate scaled
// by the square-root rule only where it does not; memory caps a device's batch at the largest measured to fit.
TEST(Answer, TheBatchIsSplitOverDevicesAndAccumulatedWithinTheMemory) {
  const TestedModelsTable table = rows_of("bert-base-cased");
  const auto plain = answer_from(table, AnswerOptions{});
  ASSERT_TRUE(plain);
  ASSERT_EQ(plain->batch_size, 16);
  EXPECT_EQ(plain->per_device_batch, 16);
  EXPECT_EQ(plain->gradient_accumulation, 1);
  EXPECT_DOUBLE_EQ(plain->job_learning_rate, plain->learning_rate);
  EXPECT_EQ(plain->hardware_note, "");

  const auto two = answer_from(table, AnswerOptions{JobLength{}, kWarmupShare, 2});
  EXPECT_EQ(two->per_device_batch, 8);
  EXPECT_DOUBLE_EQ(two->job_learning_rate, two->learning_rate);
  EXPECT_NE(two->hardware_note.find("effective batch stays 16"), std::string::npos) << two->hardware_note;

  const auto three = answer_from(table, AnswerOptions{JobLength{}, kWarmupShare, 3});
  EXPECT_EQ(three->per_device_batch, 6);  // 18 in all: 16 does not split in three
  EXPECT_NEAR(three->job_learning_rate, three->learning_rate * std::sqrt(18.0 / 16.0), 1e-12);
  EXPECT_NE(three->hardware_note.find("effective batch is 18, not 16"), std::string::npos) << three->hardware_note;

  const TableRow& row = row_of(table, plain->precision);
  const int64_t eight = peak_at(*row.native_result(), 8);
  ASSERT_GT(eight, 0);
  ASSERT_GT(peak_at(*row.native_result(), 16), eight);
  const auto capped = answer_from(table, AnswerOptions{JobLength{}, kWarmupShare, 1, eight});
  EXPECT_EQ(capped->per_device_batch, 8);
  EXPECT_EQ(capped->gradient_accumulation, 2);
  EXPECT_DOUBLE_EQ(capped->job_learning_rate, capped->learning_rate);

  const auto none_fits = answer_from(table, AnswerOptions{JobLength{}, kWarmupShare, 1, 1024});
  EXPECT_EQ(none_fits->per_device_batch, 1);
  EXPECT_EQ(none_fits->gradient_accumulation, 16);
  EXPECT_NE(none_fits->hardware_note.find("no batch of the ramp ran within"), std::string::npos);
  EXPECT_THROW(answer_from(table, AnswerOptions{JobLength{}, kWarmupShare, -1}), std::invalid_argument);
  const auto hf = nlohmann::json::parse(emitted("hf", *capped));
  EXPECT_EQ(hf["per_device_train_batch_size"], 8);
  EXPECT_EQ(hf["gradient_accumulation_steps"], 2);
}

// A data-parallel row (`tune --model --ranks 2`) stores the batch per rank, and its rate was found for the batch of
// all ranks: the user's devices split that effective batch, by default as many devices as ranks; on one device the
// effective batch is kept by a larger step, not halved; --job-hours counts steps of every rank's samples.
TEST(Answer, ADataParallelRowsBatchIsPerRankAndItsRateIsForAllRanks) {
  TestedModelsTable table = rows_of("roberta-base");
  for (TableRow& row : table.rows) row.step_options += ",ranks=2";
  const auto as_searched = answer_from(table, AnswerOptions{JobLength{}, kWarmupShare});
  ASSERT_TRUE(as_searched);
  const int per_rank = as_searched->batch_size;
  EXPECT_EQ(as_searched->ranks, 2);
  EXPECT_EQ(as_searched->devices, 2);
  EXPECT_EQ(as_searched->per_device_batch, per_rank);
  EXPECT_DOUBLE_EQ(as_searched->job_learning_rate, as_searched->learning_rate);
  EXPECT_NE(describe_run(*as_searched).find(strf("batch %d per rank x 2 ranks", per_rank)), std::string::npos)
      << describe_run(*as_searched);

  const auto one = answer_from(table, AnswerOptions{JobLength{}, kWarmupShare, 1});
  EXPECT_EQ(one->per_device_batch, 2 * per_rank);
  EXPECT_DOUBLE_EQ(one->job_learning_rate, one->learning_rate);
  EXPECT_NE(one->hardware_note.find(strf("effective batch stays %d", 2 * per_rank)), std::string::npos)
      << one->hardware_note;
  EXPECT_NE(one->hardware_note.find("not measured on 1 devices"), std::string::npos) << one->hardware_note;

  const auto four = answer_from(table, AnswerOptions{JobLength{}, kWarmupShare, 4});
  EXPECT_EQ(four->per_device_batch * four->devices, std::max(4, 2 * per_rank));

  const TableRow& row = row_of(table, as_searched->precision);
  const BestConfig& compiled = row.compiled_result()->best;
  const double break_even = row.confirmed_amortization.break_even_steps;
  const double hours_per_step = 2.0 * compiled.batch_size / compiled.samples_per_second / 3600;
  // 0.7 of the break-even: counting the per-rank batch as all of a step's samples would make it 1.4 and compile.
  EXPECT_FALSE(answer_from(table, AnswerOptions{JobLength{0, 0.7 * break_even * hours_per_step}, kWarmupShare})->compile);
  EXPECT_TRUE(answer_from(table, AnswerOptions{JobLength{0, 1.5 * break_even * hours_per_step}, kWarmupShare})->compile);
}
