// Is compiling worth it: speed-up of compiled over native and the break-even point, in steps of
// the compiled run and in wall time, after which the compile overhead has paid for itself.
#pragma once
#include <optional>
#include <string>

namespace tune {

struct Amortization {
  double speedup = 0;             // compiled samples/s over native samples/s
  bool worth_compiling = false;   // compiled is faster, so some job length pays off
  double break_even_steps = 0;    // compiled steps until the overhead is recovered
  double break_even_seconds = 0;  // wall time of the compiled run at that point
};

// Native and compiled are compared per sample, since each backend has its own best batch size:
// one compiled step of B samples saves (B / native_sps - B / compiled_sps) seconds.
Amortization amortize(double native_samples_per_s, double compiled_samples_per_s, int compiled_batch,
                      double compile_overhead_seconds);

// "412 steps (3m 05s)" or "not worth compiling".
std::string describe_break_even(const Amortization& a);

// For a planned job of `job_steps` compiled steps: "compile" or "stay native" with the reason.
std::string recommend_for_job(const Amortization& a, double job_steps);

}  // namespace tune
