// Device memory caps and peaks for a trial. The CUDA branch compiles against the CUDA libtorch in CI
// and runs only where a GPU exists.
#include "trial/device_memory.h"

#include <torch/torch.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include "instance/instance.h"
#include "trial/memory_probe.h"

namespace tune {
namespace {

c10::DeviceIndex index_of(const std::string& device) {
  const torch::Device d(device);
  return d.has_index() ? d.index() : 0;
}

}  // namespace

bool cap_device_memory(const std::string& device, int64_t limit_bytes) {
  if (!is_cuda_device(device)) return limit_bytes <= 0 || cap_memory_growth(limit_bytes);
  const auto index = index_of(device);
  // The caching allocator sets up its per-device state lazily, on the first CUDA allocation; in a fresh
  // trial process resetPeakStats/setMemoryFraction would otherwise fail with "Invalid device argument".
  torch::empty({1}, torch::TensorOptions().device(torch::Device(torch::kCUDA, index)));
  c10::cuda::CUDACachingAllocator::resetPeakStats(index);
  if (limit_bytes <= 0) return true;
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess || total_bytes == 0) return false;
  c10::cuda::CUDACachingAllocator::setMemoryFraction(std::min(1.0, double(limit_bytes) / double(total_bytes)), index);
  return true;
}

int64_t peak_device_memory(const std::string& device) {
  if (!is_cuda_device(device)) return peak_resident_bytes();
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index_of(device));
  return stats.reserved_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)].peak;
}

}  // namespace tune
