// Peak FLOP/s tables and estimates. CPU figures are theoretical (all cores at the nominal clock);
// GPU figures are the vendors' dense datasheet numbers (SXM variants where the name does not say).
#include "instance/peak_flops.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace tune {
namespace {

// fp32 FLOPs per cycle per core: lanes x 2 (multiply-add) x FMA pipes.
double cpu_fp32_flops_per_cycle(const std::string& vendor, const std::set<std::string>& flags) {
  const bool amd = vendor == "AuthenticAMD";
  if (flags.count("avx512f")) return amd ? 32 : 64;  // Zen 4 runs 512-bit FMAs on two 256-bit pipes
  if (flags.count("avx2") && flags.count("fma")) return 32;
  if (flags.count("avx")) return 16;
  return 8;
}

// bf16/fp16 over fp32 rate: AMX tiles, or AVX-512 dot-product instructions (two products per lane).
double cpu_half_factor(const std::set<std::string>& flags, const char* amx, const char* avx512) {
  if (flags.count(amx)) return 16;
  if (flags.count(avx512)) return 2;
  return 1;
}

struct GpuDatasheet {
  const char* name_part;
  double fp32_tflops, bf16_tflops, fp16_tflops;
};

// Dense tensor-core figures; searched in order, so more specific names come first.
constexpr GpuDatasheet kGpus[] = {
    {"H200", 67, 989.4, 989.4}, {"H100 PCIe", 51, 756, 756}, {"H100", 67, 989.4, 989.4},
    {"GH200", 67, 989.4, 989.4}, {"B200", 80, 2250, 2250},    {"A100", 19.5, 312, 312},
    {"L40S", 91.6, 362, 362},    {"L4", 30.3, 121, 121},        {"A10G", 31.2, 70, 70},
    {"A10", 31.2, 125, 125},     {"V100", 15.7, 0, 125},        {"T4", 8.1, 0, 65},
    {"RTX 4090", 82.6, 165, 165}, {"RTX 3090", 35.6, 71, 71},
};

}  // namespace

double PeakFlops::for_precision(const std::string& precision) const {
  if (precision == "bf16") return bf16;
  if (precision == "fp16") return fp16;
  return fp32;
}

PeakFlops cpu_peak_flops(const std::string& vendor, const std::set<std::string>& flags, double ghz, int threads) {
  PeakFlops p;
  const double per_cycle = cpu_fp32_flops_per_cycle(vendor, flags);
  p.fp32 = per_cycle * ghz * 1e9 * threads;
  p.bf16 = p.fp32 * cpu_half_factor(flags, "amx_bf16", "avx512_bf16");
  p.fp16 = p.fp32 * cpu_half_factor(flags, "amx_fp16", "avx512_fp16");
  char buf[160];
  std::snprintf(buf, sizeof buf, "estimated: %d threads x %.2f GHz x %.0f fp32 FLOPs/cycle (threads counted as cores)",
                threads, ghz, per_cycle);
  p.source = buf;
  return p;
}

PeakFlops detect_cpu_peak_flops(int threads) {
  std::ifstream in("/proc/cpuinfo");
  std::string vendor;
  std::set<std::string> flags;
  double mhz = 0;
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string value = line.substr(colon + 1);
    if (line.rfind("vendor_id", 0) == 0 && vendor.empty()) std::istringstream(value) >> vendor;
    if (line.rfind("cpu MHz", 0) == 0 && mhz == 0) mhz = std::stod(value);
    if (line.rfind("flags", 0) == 0 && flags.empty()) {
      std::istringstream words(value);
      for (std::string flag; words >> flag;) flags.insert(flag);
    }
  }
  if (mhz <= 0) return {};
  return cpu_peak_flops(vendor, flags, mhz / 1000.0, threads);
}

PeakFlops gpu_peak_flops(const std::string& device_name, int device_count) {
  for (const auto& gpu : kGpus) {
    if (device_name.find(gpu.name_part) == std::string::npos) continue;
    PeakFlops p{gpu.fp32_tflops * 1e12 * device_count, gpu.bf16_tflops * 1e12 * device_count,
                gpu.fp16_tflops * 1e12 * device_count, std::string("datasheet: ") + gpu.name_part + " dense"};
    return p;
  }
  return {0, 0, 0, "unknown GPU '" + device_name + "': give peak_tflops_* in an instance profile"};
}

}  // namespace tune
