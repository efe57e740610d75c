// Process memory for CPU trials: the resident high-water mark, and an enforced cap on growth.
// The cap turns "the machine ran out of memory" into an allocation failure the trial reports as oom.
#pragma once
#include <cstdint>

namespace tune {

int64_t peak_resident_bytes();    // getrusage ru_maxrss
int64_t current_virtual_bytes();  // /proc/self/statm

// Lets the process grow by at most `bytes` beyond its current address space (RLIMIT_AS).
// Returns false when the limit could not be set.
bool cap_memory_growth(int64_t bytes);

}  // namespace tune
