// Tests for the instance's peak FLOP/s: CPU estimates from ISA flags, GPU datasheet lookup, and
// instance-profile overrides (which MFU divides by).
#include <gtest/gtest.h>

#include <cstdlib>

#include "instance/instance.h"
#include "instance/peak_flops.h"
#include "test_helpers.h"

namespace tune {
namespace {
using namespace testing;

TEST(PeakFlops, CpuEstimateFollowsVectorUnits) {
  const std::set<std::string> zen4{"avx", "avx2", "fma", "avx512f", "avx512_bf16"};
  const auto amd = cpu_peak_flops("AuthenticAMD", zen4, 2.6, 2);
  EXPECT_DOUBLE_EQ(amd.fp32, 32 * 2.6e9 * 2);
  EXPECT_DOUBLE_EQ(amd.bf16, 2 * amd.fp32);  // AVX-512 BF16 dot products
  EXPECT_DOUBLE_EQ(amd.fp16, amd.fp32);
  const auto intel = cpu_peak_flops("GenuineIntel", {"avx2", "fma", "avx512f", "amx_bf16"}, 2.0, 4);
  EXPECT_DOUBLE_EQ(intel.fp32, 64 * 2.0e9 * 4);
  EXPECT_DOUBLE_EQ(intel.bf16, 16 * intel.fp32);
  EXPECT_DOUBLE_EQ(cpu_peak_flops("GenuineIntel", {"sse4_2"}, 1.0, 1).fp32, 8e9);
  EXPECT_NE(amd.source.find("2 threads"), std::string::npos) << amd.source;
}

TEST(PeakFlops, DetectedCpuHasAPeak) {
  const Instance cpu = detect_cpu_instance();
  EXPECT_GT(cpu.peak.fp32, 1e9 * cpu.threads);  // any machine that runs tune beats 1 GFLOP/s per thread
  EXPECT_DOUBLE_EQ(cpu.peak.for_precision("fp32"), cpu.peak.fp32);
}

TEST(PeakFlops, KnownGpusFromDatasheetsUnknownAreZero) {
  const auto h200 = gpu_peak_flops("NVIDIA H200", 1);
  EXPECT_DOUBLE_EQ(h200.bf16, 989.4e12);
  EXPECT_DOUBLE_EQ(gpu_peak_flops("NVIDIA H100 PCIe", 2).bf16, 2 * 756e12);
  const auto unknown = gpu_peak_flops("Imaginary X1", 1);
  EXPECT_EQ(unknown.bf16, 0);
  EXPECT_NE(unknown.source.find("Imaginary X1"), std::string::npos);
}

TEST(PeakFlops, InstanceProfileOverridesAndScalesThePeak) {
  const auto home = temp_dir("peak-home");
  write_file(home / "configs/instances/measured.yaml", "threads: 1\npeak_tflops_bf16: 0.5\n");
  write_file(home / "configs/instances/bad.yaml", "peak_tflops_fp32: fast\n");
  const char* old = std::getenv("TUNE_HOME");
  const std::string saved = old ? old : "";
  setenv("TUNE_HOME", home.c_str(), 1);
  Instance detected = detect_cpu_instance();
  detected.threads = 2;
  detected.peak = PeakFlops{100e9, 200e9, 100e9, "test"};
  const Instance one = apply_instance_profile(detected, "measured");
  EXPECT_DOUBLE_EQ(one.peak.fp32, 50e9);   // half the threads, half the estimate
  EXPECT_DOUBLE_EQ(one.peak.bf16, 0.5e12); // given by the profile
  const std::string msg = error_of([&] { apply_instance_profile(detected, "bad"); });
  if (old) setenv("TUNE_HOME", saved.c_str(), 1); else unsetenv("TUNE_HOME");
  EXPECT_NE(msg.find("peak_tflops_fp32"), std::string::npos) << msg;
}

}  // namespace
}  // namespace tune
