// Times training steps without adding a sync per step: marks at step boundaries, read in blocks.
// CPU: wall clock, or the process's CPU time. CUDA: events on the current stream, one synchronize per block.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace tune {

class StepClock {
 public:
  virtual ~StepClock() = default;
  virtual void mark() = 0;  // a step boundary (once before a block's first step, then after each step)
  // Seconds between consecutive marks of this block (one per step), waiting for the device to reach the
  // last mark; the next block starts with a fresh mark.
  virtual std::vector<double> collect() = 0;
  // How many steps a block should hold before collect(): 1 on CPU; more on GPU so launches overlap.
  virtual int block_steps() const = 0;
};

// The clock for a torch device string ("cpu", "cuda", "cuda:1") and a kind: "wall", or "cpu" (CPU device
// only: the process's CPU time, which a co-tenant taking the core does not inflate; what a step costs with
// one intra-op thread). Throws std::invalid_argument quoting another kind, or "cpu" on a GPU.
std::unique_ptr<StepClock> make_step_clock(const std::string& device, const std::string& kind = "wall");

}  // namespace tune
