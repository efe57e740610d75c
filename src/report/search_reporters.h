// What `tune --model` prints when its search ends, through the reporter interface (report/reporter.h): markdown
// (the heading, the objective, this search's rows of the table, what each backend's search concluded, the job's
// recommendation) or JSON with --json (schema "tune-search": the rows, each search's strategies and stop causes,
// the screen's verdicts).
#pragma once
#include <memory>
#include <string>

#include "engine/job_horizon.h"
#include "engine/search_engine.h"
#include "report/reporter.h"
#include "report/tested_models_table.h"

namespace tune {

// 3: rows in the table's JSON form; each search's strategies and stop cause; 4: rows of table schema 4 (speed-up at
// one batch, rate edges), each search's rate edge; 5: the screen's verdicts (screening); 6: each search's
// learning-rate horizon (lr_horizon_steps) and the job it was chosen for (job_steps); 7: rows of table schema 7
// (budget, screened-out rows), each search's wanted horizon (lr_horizon_wanted: more than lr_horizon_steps when cut);
// 8: rows of table schema 9 (its 8's paired verdict, and MFU against the row's `mfu_peak`, measured where stored);
// 9: rows of table schema 12 (each backend's `confirmation_rounds`); 10: rows of table schema 13 (`batch_cut`)
// 11: rows of table schema 15 (each backend's `observers`: what attached tools cost, --observers; `data_parallel`)
// 12: rows of table schema 16 (each row's `other_compiles`: every compiled backend but the fastest, its break-even)
constexpr int kSearchJsonSchemaVersion = 12;

// One finished search and the rows of the table it answers.
struct SearchReport {
  std::string model;        // the model's name
  std::string instance;     // the instance profile's name
  std::string batch_tuner;  // the settings' strategies, stated per search in the JSON
  std::string lr_tuner;
  SearchSummary summary;
  TestedModelsTable table;  // this search's rows (and those of other backends' studies of the same question)
  JobLength job;            // --job-steps or --job-hours (0: not given): the markdown recommends compiling or not
};

// md and json, in that order.
ReporterList<SearchReport> search_reporters();
// The reporter for "md" or "json"; throws std::invalid_argument quoting any other name.
std::unique_ptr<Reporter<SearchReport>> make_search_reporter(const std::string& format);

}  // namespace tune
