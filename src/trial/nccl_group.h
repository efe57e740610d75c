// The NCCL process group of a data-parallel trial on GPUs (trial/data_parallel.h), in a file of its own: it is the
// one translation unit compiled with c10d's NCCL headers (USE_C10D_NCCL and the wheel's nccl.h; the symbols are
// libtorch_cuda's). A build configured without nccl.h compiles a version that refuses with that reason.
#pragma once
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>

namespace tune {

// Rank `rank` of `ranks` in an NCCL group over `store`; its collectives fail after `timeout`. The caller has made
// the rank's GPU the current device (NCCL runs one rank per device).
c10::intrusive_ptr<c10d::Backend> make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int ranks,
                                                  std::chrono::milliseconds timeout);

}  // namespace tune
