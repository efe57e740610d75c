// The achievable matmul peak of an instance, measured: square torch.mm at a precision on the instance's device
// and threads. MFU is reported against it (store/instance_peaks.h keeps it per fingerprint and libtorch), since
// the estimate from a CPU's nominal clock reads 15-30% low on a VM whose cores boost.
#pragma once
#include <string>

#include "instance/instance.h"

namespace tune {

// Times torch.mm of a few square sizes (512-2048 on a CPU at instance.threads, 4096-8192 on a GPU) after a
// warm-up, and returns the fastest size's median repetition as FLOP/s (2 N^3 per mm): a sustained figure, not
// one lucky repetition. Takes a few seconds; restores libtorch's thread count. Throws std::invalid_argument
// quoting a precision other than fp32, bf16 or fp16, std::runtime_error when the device cannot run it.
MeasuredPeak measure_matmul_peak(const Instance& instance, const std::string& precision);

}  // namespace tune
