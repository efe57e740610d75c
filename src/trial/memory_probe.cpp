// Process memory for CPU trials: the resident high-water mark, and an enforced cap on growth.
// RLIMIT_AS counts address space, so the cap is set relative to what is mapped already (libraries).
#include "trial/memory_probe.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

namespace tune {

int64_t peak_resident_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

int64_t current_virtual_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0;
  statm >> pages;
  return pages * sysconf(_SC_PAGESIZE);
}

bool cap_memory_growth(int64_t bytes) {
  const rlim_t limit = static_cast<rlim_t>(current_virtual_bytes() + bytes);
  rlimit rl{limit, limit};
  return setrlimit(RLIMIT_AS, &rl) == 0;
}

}  // namespace tune
