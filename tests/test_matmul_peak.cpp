// The matmul benchmark behind the measured peak (instance/matmul_peak.h) on this machine's CPU: a positive, finite
// figure in a range any CPU that runs tune reaches, said how it was measured. No timing is asserted beyond that.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>

#include <cmath>

#include "instance/matmul_peak.h"
#include "test_helpers.h"
#include "util/utc_time.h"

using namespace tune;

TEST(MatmulPeak, MeasuresAPlausibleCpuPeakAndRestoresTheThreads) {
  Instance cpu = detect_cpu_instance();
  cpu.threads = 1;  // the profile's threads, not libtorch's own
  const int threads_before = at::get_num_threads();
  const MeasuredPeak peak = measure_matmul_peak(cpu, "fp32");
  EXPECT_EQ(at::get_num_threads(), threads_before);
  EXPECT_TRUE(std::isfinite(peak.flops)) << peak.flops;
  EXPECT_GT(peak.flops, 1e8) << "0.1 GFLOP/s: slower than any CPU tune runs on";
  EXPECT_LT(peak.flops, 1e14) << "100 TFLOP/s from one CPU thread: the clock or the FLOP count is wrong";
  EXPECT_NE(peak.method.find("torch.mm "), std::string::npos) << peak.method;
  EXPECT_NE(peak.method.find(" fp32, 1 threads, median of "), std::string::npos) << peak.method;
  EXPECT_TRUE(parse_utc_record(peak.measured_at).has_value()) << peak.measured_at;
}

TEST(MatmulPeak, AnUnknownPrecisionIsRefusedByName) {
  const std::string message = tune::testing::error_of([] { measure_matmul_peak(detect_cpu_instance(), "fp8"); });
  EXPECT_NE(message.find("'fp8'"), std::string::npos) << message;
}
