// Is compiling worth it: speed-up of compiled over native and the break-even point, in steps of
// the compiled run and in wall time, after which the compile overhead has paid for itself.
#pragma once
#include <optional>
#include <string>

namespace tune {

struct Amortization {
  int batch_size = 0;             // the batch the steps are counted in (native and compiled ran it)
  double speedup = 0;             // compiled samples/s over native samples/s
  bool worth_compiling = false;   // compiled is faster, so some job length pays off
  double break_even_steps = 0;    // compiled steps until the overhead is recovered
  double break_even_seconds = 0;  // wall time of the compiled run at that point
};

// Native and compiled at one batch size B (the table compares them where both ran): one compiled step of B
// samples saves (B / native_sps - B / compiled_sps) seconds; `overhead_seconds` is what compiling costs a
// job first (net_compile_overhead).
Amortization amortize(double native_samples_per_s, double compiled_samples_per_s, int batch_size,
                      double overhead_seconds);

// Extra shapes a real job's compiled step meets besides its training batch: a last partial batch and an
// evaluation batch. Each is assumed to cost the measured compile overhead again (an upper bound: a
// dynamic-shape compile pays less).
constexpr int kJobExtraShapes = 2;
// What compiling costs a job beyond running natively: the compiled backend's warm-up overhead, once per shape
// (1 + extra_shapes), less the native backend's own warm-up overhead at the same batch, which a native job
// pays too. Never below 0.
double net_compile_overhead(double compiled_overhead_seconds, double native_overhead_seconds, int extra_shapes);

// "412 steps of batch 32 (3m 05s)" or "not worth compiling".
std::string describe_break_even(const Amortization& a);

// For a planned job of `job_steps` steps of `job_batch` samples: "compile" or "stay native" with the reason
// (the job and the break-even compared in samples, as their batch sizes may differ).
std::string recommend_for_job(const Amortization& a, double job_steps, int job_batch);

}  // namespace tune
