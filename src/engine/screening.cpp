// The default coverage of an instance and the screening verdicts. The screen compares every entry at one batch
// with the fastest; the margin (keep_share) leaves room for a backend that gains more at larger batches. A kept
// precision keeps its native and its fastest compiler, so its row still answers whether compiling pays off.
#include "engine/screening.h"

#include <algorithm>

#include "trial/backend_registry.h"
#include "util/table_format.h"

namespace tune {

std::vector<std::string> default_precisions(const Instance& instance) {
  std::vector<std::string> out{"fp32"};
  const bool gpu = instance.device != "cpu";
  if (gpu || instance.peak.bf16 > instance.peak.fp32) out.push_back("bf16");
  if (gpu) out.push_back("fp16");
  return out;
}

std::vector<std::string> default_backends(const Instance& instance) { return default_backends_on(instance.device); }

std::string default_optimizer(const Instance& instance) {
  return is_cuda_device(instance.device) ? "fused" : "adamw";
}

namespace {

// The fastest entry that ran among those `admits` takes (nullptr when none).
template <typename Admits>
const ScreenEntry* fastest(const std::vector<ScreenEntry>& entries, Admits admits) {
  const ScreenEntry* best = nullptr;
  for (const auto& e : entries)
    if (e.result.ok() && admits(e) && (!best || e.result.samples_per_second > best->result.samples_per_second))
      best = &e;
  return best;
}

// A screen verdict rests on one trial per pair, taken minutes apart: on this kind of machine a pair's trials move by
// more than their own CIs between runs (issue 33: bert-tiny bf16 at 74% of the fastest in one run, 84% in the
// next). So one trial drops a pair only when it lies below the kept share by more than this band; within it the pair
// is searched and its later figures (the batch search, the confirmation's rounds) decide. The band is the +-10% the
// batch rule trusts a trial's CI within (tuners/batch_pick.h).
constexpr double kScreenNoiseShare = 0.10;

// Whether one trial leaves the pair a chance: at or above keep_share less the noise band (only clearly below it
// drops a pair).
bool can_win(const ScreenEntry& e, const ScreenEntry& best, double keep_share) {
  return e.result.ok() && e.result.samples_per_second >= (keep_share - kScreenNoiseShare) * best.result.samples_per_second;
}

// At or above the kept share itself: kept without the band's help.
bool clearly_kept(const ScreenEntry& e, const ScreenEntry& best, double keep_share) {
  return e.result.samples_per_second >= keep_share * best.result.samples_per_second;
}

bool precision_can_win(const std::vector<ScreenEntry>& entries, const std::string& precision,
                       const ScreenEntry& best, double keep_share) {
  return std::any_of(entries.begin(), entries.end(), [&](const ScreenEntry& e) {
    return e.precision == precision && can_win(e, best, keep_share);
  });
}

// The fastest compiled (non-native) entry of `precision` that ran: the one whose search answers whether
// compiling pays off at that precision, even when it cannot win.
const ScreenEntry* fastest_compiler(const std::vector<ScreenEntry>& entries, const std::string& precision,
                                    const std::string& native_backend) {
  return fastest(entries,
                 [&](const ScreenEntry& e) { return e.precision == precision && e.backend != native_backend; });
}

std::string dropped_reason(const std::string& figures, double keep_share) {
  return strf("dropped: %s, below the %.0f%% kept by more than the screen's noise band (%.0f%%); indicative: one trial "
              "each", figures.c_str(), 100 * keep_share, 100 * kScreenNoiseShare);
}

}  // namespace

void judge_screen(std::vector<ScreenEntry>& entries, const std::string& native_backend, double keep_share) {
  const ScreenEntry* best = fastest(entries, [](const ScreenEntry&) { return true; });
  for (auto& e : entries) {
    if (!e.result.ok()) {
      e.kept = false;
      e.reason = "dropped: " + to_string(e.result.status) + ": " + e.result.error_message;
      continue;
    }
    const double share = e.result.samples_per_second / best->result.samples_per_second;
    const std::string figures = strf("%.1f samples/s, %.0f%% of the fastest (%s %s)", e.result.samples_per_second,
                                     100 * share, best->backend.c_str(), best->precision.c_str());
    if (clearly_kept(e, *best, keep_share)) {
      e.reason = "kept: " + figures;
    } else if (can_win(e, *best, keep_share)) {
      e.reason = strf("kept: %s, within the screen's noise band (%.0f%%) of the %.0f%% kept: one trial does not drop "
                      "it, its search decides", figures.c_str(), 100 * kScreenNoiseShare, 100 * keep_share);
    } else if (!precision_can_win(entries, e.precision, *best, keep_share)) {
      e.kept = false;
      e.reason = dropped_reason(figures, keep_share);
    } else if (e.backend == native_backend) {
      e.reason = "kept as the baseline of " + e.precision + "'s speed-ups: " + figures;
    } else if (&e == fastest_compiler(entries, e.precision, native_backend)) {
      e.reason = "kept as " + e.precision + "'s fastest compiler, to measure whether compiling pays off: " + figures;
    } else {
      e.kept = false;
      e.reason = dropped_reason(figures, keep_share);
    }
  }
}

}  // namespace tune
