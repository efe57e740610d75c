// Reuse of stored measured peaks, and measurement of the missing ones (store/instance_peaks.h).
#include "store/instance_peaks.h"

#include "util/table_format.h"

namespace tune {
namespace {

std::vector<StoredPeak> stored_peaks(const Database& db, const std::string& fingerprint,
                                     const std::string& libtorch_version, const std::vector<std::string>& precisions) {
  std::vector<StoredPeak> found;
  for (const auto& precision : precisions)
    if (const auto peak = db.peak(fingerprint, libtorch_version, precision)) found.push_back(*peak);
  return found;
}

}  // namespace

PeakFlops InstancePeaks::flops() const {
  PeakFlops p;
  for (const auto& peak : stored) {
    double& slot = peak.precision == "bf16" ? p.bf16 : peak.precision == "fp16" ? p.fp16 : p.fp32;
    slot = peak.measured.flops;
    p.source += (p.source.empty() ? "measured: " : "; ") + peak.measured.method;
  }
  return p;
}

InstancePeaks stored_or_measured_peaks(Database& db, const InstanceHardware& hardware,
                                       const std::string& libtorch_version, const std::vector<std::string>& precisions,
                                       const MeasureMissingPeaks& measure_missing) {
  const std::string fingerprint = hardware.fingerprint();
  InstancePeaks peaks;
  for (const auto& precision : precisions)
    if (!db.peak(fingerprint, libtorch_version, precision)) peaks.measured_now.push_back(precision);
  if (!peaks.measured_now.empty()) measure_missing(peaks.measured_now);
  peaks.stored = stored_peaks(db, fingerprint, libtorch_version, precisions);
  return peaks;
}

std::string describe_peak(const StoredPeak& peak) {
  return strf("%.1f GFLOP/s %s (%s; %s)", peak.measured.flops / 1e9, peak.precision.c_str(),
              peak.measured.method.c_str(), peak.measured.measured_at.c_str());
}

}  // namespace tune
