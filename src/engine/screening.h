// What the default search covers on an instance (every precision its hardware runs fast, every compiler there)
// and the screen that times each backend x precision at one batch and drops those that cannot win.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
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

// A second round for a precision the first would drop on speed: its fastest pair and the pair it was judged
// against (its reference), measured again one after the other in the reverse order. One trial on a 2-core VM can
// be slowed 2-3x by a burst (issue 33: roberta-tiny eager bf16 at 98% of eager fp32 in one sitting, 62% in the
// next), so a precision's whole row is dropped only when two rounds agree.
// TrialSpec::repeat of a screening trial measured again in the second round, apart from the confirmation's rounds
// 1, 2, ...
constexpr int kScreenRecheckRepeat = -1;

struct ScreenRecheck {
  std::string precision;
  // false: the whole precision, which round 1 would drop; true: one compiler of a precision round 1 keeps, which
  // round 1 would drop as slower than that precision's fastest compiler
  bool one_backend = false;
  size_t pair = 0;       // entries' index: the precision's fastest pair that ran (one_backend: that compiler)
  size_t reference = 0;  // entries' index: the fastest pair comparable with it (its backend ran at the precision)
  std::optional<double> share;  // round 2's samples/s of pair over reference; none where either did not run
};

// The second rounds round 1 asks for: each precision it would drop on speed alone whose fastest pair reached at
// least a third of its reference, and each compiler it would drop within a precision it keeps (not that precision's
// fastest compiler) that reached at least a third of its reference: below a third one trial stands (a burst slows a
// trial 2-3x, rarely more). The screen runs a second round only when its two trials took at most a quarter of the
// budget left. A drop is a decision of the row: it rests on two rounds that agree, or says it is indicative.
std::vector<ScreenRecheck> screen_rechecks(const std::vector<ScreenEntry>& entries, const std::string& native_backend,
                                           double keep_share);

// Keeps what can win: an entry within keep_share of the fastest comparable entry's samples/s at the screening
// batch, or below it by less than the screen's noise band (one trial each: the search decides those); in a
// precision with such an entry, or whose second round (`rechecks`) put its fastest pair within the band, its native
// backend too (the baseline of that precision's speed-ups) and its fastest compiled backend (whose search says
// whether compiling pays off). Drops the rest, failed trials included, saying why. The comparable entries of a
// precision are those of the backends that ran at it: a precision is not judged by a compiler whose trial at it
// timed out (Inductor fp32 compiled within the screen's share where Inductor bf16 did not).
void judge_screen(std::vector<ScreenEntry>& entries, const std::string& native_backend, double keep_share,
                  const std::vector<ScreenRecheck>& rechecks = {});

}  // namespace tune
