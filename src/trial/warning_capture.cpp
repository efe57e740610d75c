// Warning capture and CUDA sync detection. Warnings go to stderr once (first occurrence) and are
// kept with counts, so "this step syncs every step" shows as one line with a count, not a flood.
#include "trial/warning_capture.h"

#include <c10/cuda/CUDAFunctions.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>

namespace tune {

WarningCapture::WarningCapture() : previous_(c10::WarningUtils::get_warning_handler()) {
  c10::WarningUtils::set_warning_handler(this);
}

WarningCapture::~WarningCapture() { c10::WarningUtils::set_warning_handler(previous_); }

void WarningCapture::process(const c10::Warning& warning) {
  const std::string text = warning.msg();
  const auto it = std::find(order_.begin(), order_.end(), text);
  if (it != order_.end()) {
    ++counts_[it - order_.begin()];
    return;
  }
  std::fprintf(stderr, "tune: warning: %s\n", text.c_str());
  order_.push_back(text);
  counts_.push_back(1);
}

std::vector<std::string> WarningCapture::messages() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < order_.size(); ++i)
    out.push_back(order_[i] + (counts_[i] > 1 ? " (x" + std::to_string(counts_[i]) + ")" : ""));
  return out;
}

SyncWarnings::SyncWarnings(const std::string& device) {
  if (!torch::Device(device).is_cuda()) return;
  auto& state = c10::cuda::warning_state();
  previous_ = static_cast<int>(state.get_sync_debug_mode());
  state.set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
  active_ = true;
}

SyncWarnings::~SyncWarnings() {
  if (active_) c10::cuda::warning_state().set_sync_debug_mode(static_cast<c10::cuda::SyncDebugMode>(previous_));
}

}  // namespace tune
