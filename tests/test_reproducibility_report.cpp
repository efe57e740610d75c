// The reproducibility comparison on hand-made tables: each kind of decision agreeing, tying and differing.
#include <gtest/gtest.h>

#include <sstream>

#include "tools/reproducibility_report.h"

using namespace tune;
using Json = nlohmann::json;

namespace {

Json backend(const std::string& name, int batch, double rate, double tie_with = 0, bool dropped = false) {
  return {{"backend", name},
          {"batch_size", batch},
          {"learning_rate", rate},
          {"learning_rate_tie_with", tie_with > 0 ? Json(tie_with) : Json(nullptr)},
          {"screened_out", dropped ? Json("dropped: 60% of the fastest") : Json(nullptr)}};
}

Json row(const std::string& model, const Json& native, const Json& compiled, const Json& paired,
         const Json& backends) {
  return {{"model", model},   {"precision", "fp32"},          {"seq_len", 32},
          {"native", native}, {"compiled_backend", compiled.value("backend", "")},
          {"compiled", compiled}, {"paired", paired}, {"worth_compiling", false}, {"speedup_best_vs_best", 1.1},
          {"backends", backends}, {"first_trial_at", "2026-12-05T07:25:00Z"}, {"last_trial_at", "2026-12-05T07:40:00Z"}};
}

Json paired(const std::string& verdict, double speedup, double low, double high) {
  return {{"verdict", verdict}, {"speedup", speedup}, {"ci_low", low}, {"ci_high", high}};
}

const Decision& find(const ReproducibilityComparison& c, const std::string& row, const std::string& what) {
  for (const auto& d : c.decisions)
    if (d.row == row && d.what == what) return d;
  static const Decision none{};
  ADD_FAILURE() << "no decision " << row << " / " << what;
  return none;
}

}  // namespace

TEST(Reproducibility, DecisionsAgreeTieOrDiffer) {
  const Json eager = backend("eager", 32, 3e-3), jit = backend("jit", 64, 3e-3, 1e-3);
  const Json first = {{"rows",
                       {row("bert-tiny", eager, jit, paired("no difference", 1.13, 0.92, 1.40),
                            {{"eager", eager}, {"jit", jit}, {"inductor", backend("inductor", 8, 0, 0, true)}}),
                        row("gpt2-tiny", eager, jit, paired("faster", 1.2, 1.1, 1.3), {{"eager", eager}, {"jit", jit}})}}};
  const Json eager2 = backend("eager", 16, 3e-3), jit2 = backend("jit", 64, 1e-3);
  const Json second = {{"rows",
                        {row("bert-tiny", eager2, jit2, paired("slower", 0.96, 0.93, 0.99),
                             {{"eager", eager2}, {"jit", jit2}, {"inductor", backend("inductor", 8, 3e-3)}}),
                         row("roberta-tiny", eager, jit, paired("faster", 1.2, 1.1, 1.3), {{"eager", eager}})}}};
  const ReproducibilityComparison c = compare_sittings(first, second);
  const std::string bert = "bert-tiny fp32 seq 32";
  EXPECT_EQ(find(c, bert, "compile").agreement, Agreement::tie);  // 0.96 lies in [0.92, 1.40]
  EXPECT_EQ(find(c, bert, "batch native").agreement, Agreement::differs);
  EXPECT_EQ(find(c, bert, "batch compiled").agreement, Agreement::same);
  EXPECT_EQ(find(c, bert, "rate native").agreement, Agreement::same);
  EXPECT_EQ(find(c, bert, "rate compiled").agreement, Agreement::tie);  // "3e-3 or 1e-3" covers 1e-3
  EXPECT_EQ(find(c, bert, "rate compiled").first, "3.0e-03 or 1.0e-03");
  EXPECT_EQ(find(c, bert, "screen: inductor").first, "dropped");
  EXPECT_EQ(find(c, bert, "screen: inductor").agreement, Agreement::differs);
  EXPECT_EQ(find(c, "gpt2-tiny fp32 seq 32", "row").agreement, Agreement::differs);
  EXPECT_EQ(find(c, "roberta-tiny fp32 seq 32", "row").second, "present");

  // A verdict outside the other's interval differs.
  Json moved = second;
  moved["rows"][0]["paired"] = paired("faster", 1.5, 1.45, 1.55);
  EXPECT_EQ(find(compare_sittings(first, moved), bert, "compile").agreement, Agreement::differs);

  std::ostringstream md;
  pick_reporter("reproducibility", "md", reproducibility_reporters())->write(md, c);
  EXPECT_NE(md.str().find(" decisions agree ("), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("- bert-tiny fp32 seq 32, batch native: 32 / 16"), std::string::npos) << md.str();
}

// A batch size within one sitting's noise (its table's batch_sizes_within_noise, from the confirmation's rounds)
// covers the other sitting's size of the same backend: a tie; another backend's, or a size outside it, differs.
TEST(Reproducibility, ABatchWithinOneSittingsNoiseIsATie) {
  Json eager = backend("eager", 32, 3e-3), jit = backend("jit", 64, 3e-3);
  eager["batch_sizes_within_noise"] = {16, 32, 64};
  jit["batch_sizes_within_noise"] = {64};
  const Json first = {{"rows", {row("bert-tiny", eager, jit, paired("no difference", 1.0, 0.9, 1.1),
                                    {{"eager", eager}, {"jit", jit}})}}};
  const Json eager2 = backend("eager", 16, 3e-3), inductor2 = backend("inductor", 64, 3e-3);
  const Json second = {{"rows", {row("bert-tiny", eager2, inductor2, paired("no difference", 1.0, 0.9, 1.1),
                                     {{"eager", eager2}, {"inductor", inductor2}})}}};
  const ReproducibilityComparison c = compare_sittings(first, second);
  EXPECT_EQ(find(c, "bert-tiny fp32 seq 32", "batch native").agreement, Agreement::tie);
  EXPECT_EQ(find(c, "bert-tiny fp32 seq 32", "batch compiled").agreement, Agreement::differs);  // jit 64 / inductor 64
  Json narrow = first;
  narrow["rows"][0]["native"]["batch_sizes_within_noise"] = {32, 64};
  EXPECT_EQ(find(compare_sittings(narrow, second), "bert-tiny fp32 seq 32", "batch native").agreement,
            Agreement::differs);
}

// A bound the table marks holds the other sitting's value: a rate at the edge of those tried ("≥1e-4" holds 3e-3;
// "≤4.2e-3" and "≥2.7e-3" overlap), a batch whose ramp the budget cut (at least 16 holds 64). Counted as a bound,
// apart from ties; a bound that excludes the other's value differs, and the report gives the count without bounds.
TEST(Reproducibility, AMarkedBoundThatHoldsTheOtherSittingsValueIsABound) {
  Json eager = backend("eager", 16, 1e-4), jit = backend("jit", 16, 4.2e-3);
  eager["learning_rate_edge"] = "above";
  jit["learning_rate_edge"] = "below";
  jit["batch_limit"] = "budget";
  const Json first = {{"rows", {row("bert-tiny", eager, jit, paired("faster", 1.2, 1.1, 1.3),
                                    {{"eager", eager}, {"jit", jit}})}}};
  Json eager2 = backend("eager", 8, 3e-3), jit2 = backend("jit", 64, 2.7e-3);
  jit2["learning_rate_edge"] = "above";
  const Json second = {{"rows", {row("bert-tiny", eager2, jit2, paired("faster", 1.2, 1.1, 1.3),
                                     {{"eager", eager2}, {"jit", jit2}})}}};
  const std::string bert = "bert-tiny fp32 seq 32";
  const ReproducibilityComparison c = compare_sittings(first, second);
  EXPECT_EQ(find(c, bert, "rate native").agreement, Agreement::bound);
  EXPECT_EQ(find(c, bert, "rate native").first, "≥1.0e-04");
  EXPECT_EQ(find(c, bert, "rate compiled").agreement, Agreement::bound);
  EXPECT_EQ(find(c, bert, "batch compiled").agreement, Agreement::bound);
  EXPECT_EQ(find(c, bert, "batch compiled").first, "jit 16 (budget)");
  EXPECT_EQ(find(c, bert, "batch native").agreement, Agreement::differs);  // 16, not cut, against 8

  Json below = first;
  below["rows"][0]["native"]["learning_rate_edge"] = "below";  // ≤1e-4 excludes 3e-3
  below["rows"][0]["compiled"]["batch_size"] = 128;            // at least 128 excludes 64
  const ReproducibilityComparison apart = compare_sittings(below, second);
  EXPECT_EQ(find(apart, bert, "rate native").agreement, Agreement::differs);
  EXPECT_EQ(find(apart, bert, "batch compiled").agreement, Agreement::differs);

  Json unseparated = first;  // a rate the model had not learned enough to rank allows any other
  unseparated["rows"][0]["native"]["learning_rate_edge"] = "below";
  unseparated["rows"][0]["native"]["learning_rates_separated"] = false;
  const ReproducibilityComparison any = compare_sittings(unseparated, second);
  EXPECT_EQ(find(any, bert, "rate native").agreement, Agreement::bound);
  EXPECT_EQ(find(any, bert, "rate native").first, "≤1.0e-04 (not separated)");

  std::ostringstream md;
  pick_reporter("reproducibility", "md", reproducibility_reporters())->write(md, c);
  EXPECT_NE(md.str().find("3 through a bound"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("| rate native | ≥1.0e-04 | 3.0e-03 | bound |"), std::string::npos) << md.str();
}
