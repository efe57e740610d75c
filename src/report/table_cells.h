// The human-readable cells of the tested-models table, shared by the markdown and HTML writers so
// both show the same columns with the same marks (e.g. "64*": largest batch size tested).
#pragma once
#include <string>
#include <vector>

#include "report/tested_models_table.h"

namespace tune {

std::vector<std::string> table_header();

// The table's sections in order, each only when it has rows: "Tested models" (full size) and "Tiny variants
// (tests and CI)". Writers title them when there are two.
struct TableSection {
  std::string title;
  std::vector<const TableRow*> rows;
};
std::vector<TableSection> table_sections(const TestedModelsTable& table);
std::vector<std::string> table_cells(const TableRow& row);

// "OOM at 64", "timeout at 32", "budget", "max trials", or "" (range cap, or throughput: no faster size).
std::string batch_limit_note(const BackendResult& result);
// "64*" (range cap), "32 (OOM at 64)", "16 (jit; timeout at 32)": the size, the backend when given, the limit.
std::string batch_size_cell(const BackendResult& result, const std::string& backend);
// "30m 00s", "30m 00s, cut" (the budget ended part of a search), "30m 00s, screened out", or "not recorded".
std::string budget_cell(const TableRow& row);
// The paired verdict: "compile: 1.21x (CI 1.15-1.28, 4 rounds)", "don't compile: ...", "no difference within the
// noise: ..." or "unconfirmed (1 round)"; "-" without both sides.
std::string paired_verdict_cell(const TableRow& row);
// The break-even the answer rests on: the confirmed one with its range ("412 steps of batch 32 (3m 05s; 95% CI
// 350-520 steps)"), "not worth compiling (paired)", or unconfirmed the equal-batch one; "-" without it.
std::string break_even_cell(const TableRow& row);
// "14.9 s", or "14.9 s cold, 1.6 s warm" where the row shows a warm figure (TableRow::shows_warm), or "1.6 s (warm:
// no cold compile measured)" where no cold trial ran: the net overhead the break-even rests on.
std::string compile_overhead_cell(const TableRow& row);
// "26 in 29m 31s": the trials behind the row and their wall time together.
std::string trials_cell(const TableRow& row);
// "bert-base-cased fp32 on cpu, eager: dropped: ...": each screened-out backend and the screen's reason.
std::vector<std::string> screen_notes(const TestedModelsTable& table);
// "bert-tiny bf16 on cpu, eager batch 8 + profiler: +18% step time (95% CI +12% to +25%, 6 paired rounds); ...":
// each observer trial of the table, one line each, after kObserverNote.
std::vector<std::string> observer_notes(const TestedModelsTable& table);
// "inductor:regional 1.04x at batch 8, compile 52.3 s, break-even 412 steps of batch 8 (3m 05s); the row's
// inductor: 1.06x, compile 75.0 s, break-even 600 steps ...": one other compile against the row's fastest (its
// paired verdict and break-even where its confirmation ran, else its same-batch figures).
std::string describe_other_compile(const TableRow& row, const OtherCompile& other);
// Each row's other compiles (describe_other_compile, after the row's name), after kOtherCompilesNote.
std::vector<std::string> other_compile_notes(const TestedModelsTable& table);
// The lines that follow a note of table_notes (screen_notes, observer_notes, other_compile_notes; else none).
std::vector<std::string> note_lines(const TestedModelsTable& table, const std::string& note);
// The notes under the table, each only when a row needs it (kScreenNote is followed by screen_notes' lines).
std::vector<std::string> table_notes(const TestedModelsTable& table);
// "2026-11-30" or "2026-11-29 to 2026-11-30": when the row's trials ran.
std::string measured_when(const TableRow& row);
// Whether any backend of any row has this batch limit, so writers add its note only when needed
// (range: the "*" footnote; trials: the "max trials" note).
bool any_batch_limit(const TestedModelsTable& table, BatchLimit limit);

// "≥1.0e-03" (the largest rate tried, not passed: a larger may be better), "≤3.0e-05", or "3.0e-04".
std::string learning_rate_cell(const BestConfig& best);
// The same with the runner-up's margin: "3.0e-03 (next +0.8%)", when a second rate ran; a runner-up that scored
// lower (a stored rate the search did not compare): "3.0e-03 (1.0e-03 scored 1.8% lower, not compared)".
std::string learning_rate_cell(const BackendResult& result);

extern const char* const kSetupNote;
extern const char* const kScreenNote;
extern const char* const kObserverNote;
extern const char* const kOtherCompilesNote;
extern const char* const kRanksNote;
extern const char* const kRangeCapFootnote;
extern const char* const kRateEdgeNote;
extern const char* const kSpeedupNote;
extern const char* const kRunnerUpNote;
extern const char* const kUncomparedRateNote;
extern const char* const kStoredPickNote;
extern const char* const kBatchCutNote;
extern const char* const kMovedByRoundsNote;
extern const char* const kWarmCacheNote;
extern const char* const kRatesNotSeparatedNote;
extern const char* const kReusedRateNote;
extern const char* const kBatchWithinNoiseNote;
extern const char* const kBatchLimitNote;
extern const char* const kTrialCapNote;

}  // namespace tune
