// The answer a person acts on (issue 35): from a search's rows of the table, the one config to run (precision,
// backend, batch, learning rate and the job that rate was found for), whether to compile and after how many steps,
// and what the search did not really find. `tune --model` ends with it in a few lines (write_answer); the config
// emitters (report/config_emitters.h) write it in a training library's terms.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/job_horizon.h"
#include "report/tested_models_table.h"

namespace tune {

struct RunAnswer {
  std::string model, instance, device;  // device: the instance's torch device type (cpu, cuda)
  std::string tune_version, libtorch_version, measured_at;  // measured_at: the row's last trial (UTC)
  int seq_len = 0;
  std::string precision;         // fp32, bf16, fp16 (bf16/fp16: autocast mixed precision, as tune's trials ran)
  std::string backend;           // what to run: eager, or the compiled backend when compiling pays off
  std::string compiled_backend;  // the row's fastest compiled backend ("" where none ran)
  bool compile = false;          // the paired verdict says faster (and a given job outlasts the break-even)
  std::string compile_reason;    // the verdict in words, with its interval and break-even
  int batch_size = 0;            // per rank where the row ran data-parallel (ranks > 1)
  int ranks = 1;                 // the processes each of the row's steps ran over (`tune --model --ranks N`)
  double learning_rate = 0;      // found for the effective batch, batch_size x ranks
  double samples_per_second = 0;  // of the config to run (its confirmation rounds' where they ran)
  std::string optimizer;          // adamw or fused: AdamW, weight decay 0.01, betas 0.9/0.999, eps 1e-8, no clipping
  std::string lr_schedule;        // constant or cosine, after a linear warm-up over warmup_share of the steps
  double warmup_share = 0;
  int rate_steps = 0;             // the steps the rate was ranked after (its horizon)
  std::string start, data;        // what the rate was found for: random or pretrained start, what it trained on
  std::vector<std::string> marks;   // what the search did not really find for this config (edge rate, cut ramp, tie)
  std::vector<std::string> others;  // the other precisions' rows, a line each
  // The row's observer trials (`--observers`), a line per backend and tool: "eager batch 8 + profiler: +18% ...".
  std::vector<std::string> observers;
  // The row's other compiled backends (TableRow::other_compiles), a line each beside the row's fastest, and with
  // --job-steps which of them has paid off by the job's end: a cheaper compile may pay off sooner.
  std::vector<std::string> other_compiles;
  // A data-parallel row (--ranks): the ranks, the batch per rank and the scaling figures of the config to run.
  std::string data_parallel;
  bool budget_cut = false;          // the budget ended a part of the searches behind the row
  int trials = 0;
  // For the user's hardware (AnswerOptions: devices, memory per device): the batch each device steps, the gradient
  // accumulation and the rate that keep the searched effective batch (batch_size x ranks = per_device_batch x
  // accumulation x devices); the rate is scaled by the square-root rule (tuners/batch_scaling.h, the rule tune's rate transfer
  // starts from) only where the effective batch cannot be kept. hardware_note says what changed and why.
  int devices = 1;
  int per_device_batch = 0;
  int gradient_accumulation = 1;
  double job_learning_rate = 0;
  std::string hardware_note;
};

struct AnswerOptions {
  JobLength job;              // --job-steps / --job-hours: compile only when the job outlasts the break-even
  double warmup_share = 0.1;  // the search settings' lr_warmup_share (see answer_from)
  int devices = 0;            // --devices: data-parallel devices the user trains on (0: as many as the row's ranks)
  int64_t max_memory_bytes = 0;  // --max-memory: what one device may hold (0: as measured, no limit)
};

// The answer from the rows of one model on one instance: the row (precision) whose config to run is the fastest,
// compiled where its paired verdict is "faster" and a given job outlasts the break-even, else eager. Nothing where
// no row has a searched eager best.
// The rate's trials warmed up over lround(warmup_share x steps), so where their steps agree with it the job gets
// that share, else the trials' own ratio. With a memory limit, the largest batch whose measured peak memory (on
// the row's instance) fits it is the most a device steps at once. Throws std::invalid_argument quoting devices < 0.
std::optional<RunAnswer> answer_from(const TestedModelsTable& table, const AnswerOptions& options);

// "bf16, eager, batch 16, learning rate 3.0e-04" ("batch 8 per rank x 2 ranks" for a data-parallel row): the config
// in one phrase.
std::string describe_run(const RunAnswer& a);
// What the rate was found for: "AdamW; linear warm-up over 10% of the steps, then cosine decay; ranked after 12 steps
// from a random start on <data>".
std::string describe_rate_job(const RunAnswer& a);

// The short answer a person reads in ten seconds, as markdown lines; `files` are lines naming what was written
// ("full table: PATH").
void write_answer(std::ostream& out, const RunAnswer& a, const std::vector<std::string>& files,
                  const std::string& continue_command);

}  // namespace tune
