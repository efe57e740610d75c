// Memory of the device a trial runs on: the cap the instance allows and the peak the trial reached.
// CPU: RLIMIT_AS growth cap and resident high-water mark; CUDA: the caching allocator's fraction and peak.
#pragma once
#include <cstdint>
#include <string>

namespace tune {

// Applies the cap (0: none) before anything is allocated. Returns false when it could not be applied.
bool cap_device_memory(const std::string& device, int64_t limit_bytes);

// Peak memory of this trial on the device (CUDA: allocator's reserved peak; CPU: resident high-water mark).
int64_t peak_device_memory(const std::string& device);

}  // namespace tune
