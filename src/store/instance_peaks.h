// The measured peaks a search takes MFU against: read from the store by the instance's fingerprint, libtorch and
// precision, and measured only where the store has none, so a second search on the same instance measures nothing
// and a changed instance (threads, memory, device) is measured again.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "store/database.h"

namespace tune {

// Measures the given precisions on the instance and stores each one it can (save_peak); a precision it cannot
// measure stays missing. `tune` runs `tune instance --measure-peak` in a child process for it.
using MeasureMissingPeaks = std::function<void(const std::vector<std::string>& precisions)>;

struct InstancePeaks {
  std::vector<StoredPeak> stored;          // one per precision the store holds (after measuring), in the order asked
  std::vector<std::string> measured_now;   // the precisions that were missing and handed to the measurement
  // The stored peaks as the instance's `measured` (Instance::mfu_peak); 0 at a precision still missing.
  PeakFlops flops() const;
};

// The store's peaks of `hardware` under `libtorch_version` at `precisions`; the missing ones are measured once
// (one call of measure_missing, none when nothing is missing) and read back.
InstancePeaks stored_or_measured_peaks(Database& db, const InstanceHardware& hardware,
                                       const std::string& libtorch_version, const std::vector<std::string>& precisions,
                                       const MeasureMissingPeaks& measure_missing);

// "312.4 GFLOP/s bf16 (torch.mm 2048x2048 bf16, 2 threads, median of 10; 2026-12-05T10:00:00Z)".
std::string describe_peak(const StoredPeak& peak);

}  // namespace tune
