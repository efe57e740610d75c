// The instance's peak matmul FLOP/s per precision, for model FLOPs utilization (MFU): estimated from
// the CPU's vector units and clock, looked up for known GPUs, or given by an instance profile; and the peak
// measured by a matmul benchmark (instance/matmul_peak.h), which MFU is reported against where one is stored.
#pragma once
#include <set>
#include <string>

namespace tune {

struct PeakFlops {
  double fp32 = 0;  // FLOP/s; 0 = unknown (MFU is then not reported)
  double bf16 = 0;
  double fp16 = 0;
  std::string source;  // how the figures were obtained, printed next to MFU
  // The peak for a trial precision ("fp32", "bf16", "fp16"); 0 when unknown.
  double for_precision(const std::string& precision) const;
};

// One precision's peak as a matmul benchmark measured it on an instance (instance/matmul_peak.h). Declared here,
// torch-free, so the store and the reports can hold it without libtorch.
struct MeasuredPeak {
  double flops = 0;         // FLOP/s: the median repetition at the fastest size
  std::string method;       // "torch.mm 2048x2048 bf16, 2 threads, median of 10"
  std::string measured_at;  // UTC, "2026-12-05T10:00:00Z"
};

// FMA width x FMA units x 2 FLOPs x clock x threads. Threads are counted as cores: on a machine whose
// threads are SMT siblings this overstates the peak, which the source string says.
PeakFlops cpu_peak_flops(const std::string& vendor, const std::set<std::string>& flags, double ghz, int threads);

// Reads vendor, flags and clock from /proc/cpuinfo.
PeakFlops detect_cpu_peak_flops(int threads);

// Dense (no sparsity) tensor-core peaks from vendor datasheets for known GPUs, per device x count;
// fp32 is the non-tensor-core rate (libtorch's default: TF32 off). Unknown names give zeros.
PeakFlops gpu_peak_flops(const std::string& device_name, int device_count);

}  // namespace tune
