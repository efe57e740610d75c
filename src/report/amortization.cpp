// Break-even arithmetic for compiled training steps, and the recommendation that follows.
// Kept apart from the search so reports and tests use the same formula.
#include "report/amortization.h"

#include <algorithm>
#include <cmath>

#include "util/duration.h"
#include "util/table_format.h"

namespace tune {

Amortization amortize(double native_sps, double compiled_sps, int batch, double overhead_s) {
  Amortization a;
  if (native_sps <= 0 || compiled_sps <= 0 || batch <= 0) return a;
  a.batch_size = batch;
  a.speedup = compiled_sps / native_sps;
  const double saving_per_step = batch / native_sps - batch / compiled_sps;
  if (saving_per_step <= 0) return a;
  a.worth_compiling = true;
  a.break_even_steps = std::ceil(std::max(0.0, overhead_s) / saving_per_step);
  a.break_even_seconds = overhead_s + a.break_even_steps * batch / compiled_sps;
  return a;
}

double net_compile_overhead(double compiled_overhead, double native_overhead, int extra_shapes) {
  return std::max(0.0, std::max(0.0, compiled_overhead) * (1 + extra_shapes) - std::max(0.0, native_overhead));
}

std::string describe_break_even(const Amortization& a) {
  if (!a.worth_compiling) return "not worth compiling";
  return strf("%.0f steps of batch %d (%s)", a.break_even_steps, a.batch_size,
              format_duration(a.break_even_seconds).c_str());
}

std::string recommend_for_job(const Amortization& a, double job_steps, int job_batch) {
  if (!a.worth_compiling) return "stay native: the compiled step is not faster here";
  const double job_samples = job_steps * job_batch, break_even_samples = a.break_even_steps * a.batch_size;
  const std::string job = strf("a %.0f-step job at batch %d", job_steps, job_batch);
  const std::string break_even = strf("the break-even of %.0f steps of batch %d", a.break_even_steps, a.batch_size);
  if (job_samples <= break_even_samples) return "stay native: " + job + " is shorter than " + break_even;
  return "compile: " + job + " passes " + break_even;
}

}  // namespace tune
