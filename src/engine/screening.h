// What the default search covers on an instance (every precision its hardware runs fast, every compiler there)
// and the screen that times each backend x precision at one batch and drops those that cannot win.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "instance/instance.h"
#include "trial/trial_result.h"

namespace tune {

// fp32; bf16 where the instance's bf16 peak beats its fp32 one (AVX512-BF16 or AMX on a CPU, any GPU); fp16
// on a GPU. A precision the hardware only emulates cannot win, so it is not tried.
std::vector<std::string> default_precisions(const Instance& instance);

// The registry's default coverage on the instance's device (trial/backend_registry.h): eager (native), jit,
// inductor (torch.compile: the compiler users run; needs the Python worker), and on a GPU cuda-graph. One that
// cannot run here fails its screening trial and is dropped with the reason.
std::vector<std::string> default_backends(const Instance& instance);

// The optimizer `--optimizer auto` means: on a GPU "fused" (one kernel, state on the device), since torch's AdamW
// takes its multi-tensor foreach path on CUDA by default (2.0 on): the per-tensor loop of torch::optim::AdamW would
// make eager slower than a PyTorch user's and inflate every compiled speed-up. On a CPU "adamw", torch's default
// there (foreach is CUDA-only).
std::string default_optimizer(const Instance& instance);

// One backend x precision's screening trial (a throughput trial at the screening batch) and the verdict.
struct ScreenEntry {
  std::string backend;
  std::string precision;
  int batch_size = 0;  // the screening batch
  TrialResult result;
  bool kept = true;
  std::string reason;  // why it was kept or dropped, in words
  int64_t study_id = 0;  // the study its trial is stored in (and its verdict)
};

// Keeps what can win: an entry within keep_share of the best samples/s at the screening batch, or below it by less
// than the screen's noise band (one trial each: the search decides those); in a precision
// with such an entry, its native backend too (the baseline of that precision's speed-ups) and its fastest
// compiled backend (whose search says whether compiling pays off). Drops the rest, failed trials included,
// saying why.
void judge_screen(std::vector<ScreenEntry>& entries, const std::string& native_backend, double keep_share);

}  // namespace tune
