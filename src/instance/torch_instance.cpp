// Instance detection that needs libtorch: a CUDA device when one is visible, else the CPU.
// The GPU branch compiles everywhere (CUDA wheel) but runs only where a GPU exists.
#include "instance/torch_instance.h"

#include <torch/cuda.h>
#include <torch/version.h>
#include <ATen/cuda/CUDAContext.h>

namespace tune {
namespace {

Instance detect_instance() {
  Instance inst = detect_cpu_instance();
  if (!torch::cuda::is_available()) return inst;
  const auto* props = at::cuda::getDeviceProperties(0);
  inst.name = "cuda";
  inst.device = "cuda";
  inst.device_name = props->name;
  inst.device_count = static_cast<int>(torch::cuda::device_count());
  inst.memory_bytes = static_cast<int64_t>(props->totalGlobalMem);
  inst.peak = gpu_peak_flops(inst.device_name, 1);  // trials use one device
  return inst;
}

}  // namespace

Instance resolve_instance(const std::string& name) {
  const Instance detected = detect_instance();
  if (name.empty() || name == "auto") return detected;
  return apply_instance_profile(detected, name);
}

std::string libtorch_version() { return TORCH_VERSION; }

}  // namespace tune
