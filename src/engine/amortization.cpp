// Break-even arithmetic for compiled training steps, and the recommendation that follows.
// Kept apart from the search so reports and tests use the same formula.
#include "engine/amortization.h"

#include <cmath>

#include "util/duration.h"
#include "util/table_format.h"

namespace tune {

Amortization amortize(double native_sps, double compiled_sps, int compiled_batch, double overhead_s) {
  Amortization a;
  if (native_sps <= 0 || compiled_sps <= 0 || compiled_batch <= 0) return a;
  a.speedup = compiled_sps / native_sps;
  const double saving_per_step = compiled_batch / native_sps - compiled_batch / compiled_sps;
  if (saving_per_step <= 0) return a;
  a.worth_compiling = true;
  a.break_even_steps = std::ceil(std::max(0.0, overhead_s) / saving_per_step);
  a.break_even_seconds = overhead_s + a.break_even_steps * compiled_batch / compiled_sps;
  return a;
}

std::string describe_break_even(const Amortization& a) {
  if (!a.worth_compiling) return "not worth compiling";
  return strf("%.0f steps (%s)", a.break_even_steps, format_duration(a.break_even_seconds).c_str());
}

std::string recommend_for_job(const Amortization& a, double job_steps) {
  if (!a.worth_compiling) return "stay native: the compiled step is not faster here";
  if (job_steps <= a.break_even_steps)
    return strf("stay native: a %.0f-step job is shorter than the %.0f-step break-even", job_steps, a.break_even_steps);
  return strf("compile: a %.0f-step job passes the %.0f-step break-even", job_steps, a.break_even_steps);
}

}  // namespace tune
