// The hardware a trial runs on: the detected CPU (or GPU), optionally narrowed by a profile from
// configs/instances/NAME.yaml that caps threads and memory. Every stored result is keyed by it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "instance/peak_flops.h"

namespace tune {

// What identifies an instance's hardware: the parts of its fingerprint, stored apart with every study.
struct InstanceHardware {
  std::string device = "cpu";    // torch device type trials run on
  std::string device_name;       // CPU model or GPU name
  int device_count = 1;
  int threads = 1;               // libtorch intra-op threads for trials
  int64_t memory_bytes = 0;      // memory a trial may use (GPU memory on cuda)
  std::string fingerprint() const;  // "cpu:NAME|23.5 GiB|2 threads|x1": device name, memory, threads, count
  std::string memory_text() const;  // "23.5 GiB", as the fingerprint writes it
};

// Whether a torch device string names a CUDA device ("cuda", "cuda:1").
inline bool is_cuda_device(const std::string& device) { return device.rfind("cuda", 0) == 0; }

struct Instance : InstanceHardware {
  std::string name = "cpu";      // "cpu", "cuda", or the profile's name
  PeakFlops peak;                // for MFU; not part of the fingerprint (an estimate, not an identity)
  // The matmul peak measured on this instance (instance/matmul_peak.h), stored per fingerprint and libtorch;
  // 0 where a precision has none. MFU is taken against it where given, against `peak` otherwise.
  PeakFlops measured;
  // The peak MFU is taken against at a precision: the measured one when given, else the estimate or datasheet.
  double mfu_peak(const std::string& precision) const {
    const double m = measured.for_precision(precision);
    return m > 0 ? m : peak.for_precision(precision);
  }
};

// Reads /proc/cpuinfo, the CPU affinity mask, /proc/meminfo and the cgroup memory limit.
Instance detect_cpu_instance();

// Applies configs/instances/<profile>.yaml to a detected instance (keys threads, memory,
// peak_tflops_fp32/bf16/fp16). Throws std::invalid_argument
// naming the profile (and the known ones) or the bad key.
Instance apply_instance_profile(const Instance& detected, const std::string& profile);
std::vector<std::string> list_instance_profiles();

// "4GiB", "512MiB", "8G", "1024" (bytes). Throws std::invalid_argument quoting the text.
int64_t parse_bytes(const std::string& text);
std::string format_bytes(int64_t bytes);

}  // namespace tune
