// The matmul benchmark behind the measured peak: per size a warm-up, then timed repetitions (each synchronized on
// a GPU), bounded in time so that a slow precision (fp16 without hardware support on a CPU) still ends in seconds.
#include "instance/matmul_peak.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <chrono>
#include <stdexcept>
#include <vector>

#include "stats/statistics.h"
#include "util/table_format.h"
#include "util/utc_time.h"

namespace tune {
namespace {

constexpr int kRepetitions = 10;
constexpr int kFewestRepetitions = 3;  // a median needs a few, even at a slow size
constexpr double kSecondsPerSize = 1.2;  // three sizes stay well under 3 s a precision on the dev VM's 2 cores

// The trials' thread count for the benchmark, libtorch's own back afterwards (a `tune` process goes on).
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : saved_(at::get_num_threads()) { at::set_num_threads(threads); }
  ~ThreadCount() { at::set_num_threads(saved_); }

 private:
  int saved_;
};

torch::ScalarType matmul_dtype(const std::string& precision) {
  if (precision == "fp32") return torch::kFloat32;
  if (precision == "bf16") return torch::kBFloat16;
  if (precision == "fp16") return torch::kFloat16;
  throw std::invalid_argument("precision '" + precision + "': expected fp32, bf16 or fp16");
}

// Seconds of one mm, synchronized on a GPU so the clock sees the kernel and not its launch.
double timed_mm(const torch::Tensor& a, const torch::Tensor& b, bool cuda) {
  const auto start = std::chrono::steady_clock::now();
  const torch::Tensor c = torch::mm(a, b);
  if (cuda) torch::cuda::synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct SizeTiming {
  int size = 0;
  double median_seconds = 0;
  int repetitions = 0;
};

// A warm-up mm (allocations, kernel choice, thread pool), then repetitions until kRepetitions or the size's time.
SizeTiming time_size(int n, torch::ScalarType dtype, const torch::Device& device) {
  const auto options = torch::TensorOptions().dtype(dtype).device(device);
  const torch::Tensor a = torch::randn({n, n}, options), b = torch::randn({n, n}, options);
  const bool cuda = device.is_cuda();
  double spent = timed_mm(a, b, cuda);
  std::vector<double> seconds;
  while (seconds.size() < kRepetitions && (seconds.size() < kFewestRepetitions || spent < kSecondsPerSize)) {
    seconds.push_back(timed_mm(a, b, cuda));
    spent += seconds.back();
  }
  return {n, median(seconds), static_cast<int>(seconds.size())};
}

// Whether size n's fewest repetitions would overrun twice a size's time, predicted from a smaller size (time
// grows as N^3): a slow precision keeps the figure of the sizes it could afford.
bool too_slow(const SizeTiming& smaller, int n) {
  const double ratio = static_cast<double>(n) / smaller.size;
  return smaller.median_seconds * ratio * ratio * ratio * kFewestRepetitions > 2 * kSecondsPerSize;
}

double timing_flops(const SizeTiming& t) { return 2.0 * t.size * t.size * t.size / t.median_seconds; }

std::string describe_timing(const SizeTiming& t, const Instance& instance, const std::string& precision) {
  const std::string where = is_cuda_device(instance.device) ? instance.device + " (" + instance.device_name + ")"
                                                            : std::to_string(instance.threads) + " threads";
  return strf("torch.mm %dx%d %s, %s, median of %d", t.size, t.size, precision.c_str(), where.c_str(),
              t.repetitions);
}

}  // namespace

MeasuredPeak measure_matmul_peak(const Instance& instance, const std::string& precision) {
  const torch::ScalarType dtype = matmul_dtype(precision);
  const bool cuda = is_cuda_device(instance.device);
  const std::vector<int> sizes = cuda ? std::vector<int>{4096, 8192} : std::vector<int>{512, 1024, 2048};
  const ThreadCount threads(cuda ? at::get_num_threads() : instance.threads);
  SizeTiming best;
  try {
    const torch::Device device(instance.device);
    for (int n : sizes) {
      if (best.size && too_slow(best, n)) break;
      const SizeTiming t = time_size(n, dtype, device);
      if (!best.size || timing_flops(t) > timing_flops(best)) best = t;
    }
  } catch (const c10::Error& e) {
    throw std::runtime_error("torch.mm at " + precision + " on " + instance.device + " failed: " +
                             e.what_without_backtrace());
  }
  return {timing_flops(best), describe_timing(best, instance, precision), utc_now_text("%Y-%m-%dT%H:%M:%SZ")};
}

}  // namespace tune
