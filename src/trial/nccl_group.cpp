#include "trial/nccl_group.h"

#include <stdexcept>

#ifdef TUNE_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace tune {

c10::intrusive_ptr<c10d::Backend> make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int ranks,
                                                  std::chrono::milliseconds timeout) {
#ifdef TUNE_HAVE_NCCL
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, ranks, options);
#else
  (void)store, (void)rank, (void)ranks, (void)timeout;
  throw std::invalid_argument("communication backend 'nccl': this build found no nccl.h when it was configured "
                              "(the torch wheel's nvidia/nccl/include); rebuild with it (scripts/setup)");
#endif
}

}  // namespace tune
