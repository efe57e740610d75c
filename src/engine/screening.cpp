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

// Below a third of its reference a pair's one round stands (screening.h: screen_rechecks): a burst slows a trial
// 2-3x, so below a third no burst explains it. (At half, t5-tiny bf16's jit at 49.7% of eager fp32 was dropped on
// one trial in one sitting and searched in the next.)
constexpr double kRecheckFloorShare = 1.0 / 3;

// The fastest entry that ran of a backend that also ran at `precision`: what that precision's pairs are judged
// against (nullptr when none of its pairs ran).
const ScreenEntry* reference_for(const std::vector<ScreenEntry>& entries, const std::string& precision) {
  const auto ran_at_precision = [&](const std::string& backend) {
    return std::any_of(entries.begin(), entries.end(), [&](const ScreenEntry& e) {
      return e.precision == precision && e.backend == backend && e.result.ok();
    });
  };
  return fastest(entries, [&](const ScreenEntry& e) { return ran_at_precision(e.backend); });
}

double share_of(const ScreenEntry& e, const ScreenEntry& reference) {
  return e.result.samples_per_second / reference.result.samples_per_second;
}

// Whether a share of the reference's samples/s leaves a chance: at or above keep_share less the noise band (only
// clearly below it drops a pair). The rule for round 1's trials and a second round alike.
bool within_band(double share, double keep_share) { return share >= keep_share - kScreenNoiseShare; }

bool can_win(const ScreenEntry& e, const std::vector<ScreenEntry>& entries, double keep_share) {
  return e.result.ok() && within_band(share_of(e, *reference_for(entries, e.precision)), keep_share);
}

// The second round of a whole precision (nullptr when it had none).
const ScreenRecheck* recheck_of(const std::vector<ScreenRecheck>& rechecks, const std::string& precision) {
  for (const auto& r : rechecks)
    if (!r.one_backend && r.precision == precision) return &r;
  return nullptr;
}

// The second round of one entry of a kept precision (nullptr when it had none).
const ScreenRecheck* own_recheck(const std::vector<ScreenRecheck>& rechecks, size_t entry) {
  for (const auto& r : rechecks)
    if (r.one_backend && r.pair == entry) return &r;
  return nullptr;
}

// Whether the precision has a pair that can win in round 1, or a second round that put its fastest pair within
// the band.
bool precision_can_win(const std::vector<ScreenEntry>& entries, const std::string& precision, double keep_share,
                       const std::vector<ScreenRecheck>& rechecks) {
  const ScreenRecheck* second = recheck_of(rechecks, precision);
  if (second && second->share && within_band(*second->share, keep_share)) return true;
  return std::any_of(entries.begin(), entries.end(),
                     [&](const ScreenEntry& e) { return e.precision == precision && can_win(e, entries, keep_share); });
}

// The fastest compiled (non-native) entry of `precision` that ran: the one whose search answers whether
// compiling pays off at that precision, even when it cannot win.
const ScreenEntry* fastest_compiler(const std::vector<ScreenEntry>& entries, const std::string& precision,
                                    const std::string& native_backend) {
  return fastest(entries,
                 [&](const ScreenEntry& e) { return e.precision == precision && e.backend != native_backend; });
}

// "1615.8 samples/s, 70% of the fastest (inductor fp32)", naming the restriction when a faster backend did not
// run at the entry's precision.
std::string screen_figures(const ScreenEntry& e, const std::vector<ScreenEntry>& entries) {
  const ScreenEntry& reference = *reference_for(entries, e.precision);
  const ScreenEntry& best = *fastest(entries, [](const ScreenEntry&) { return true; });
  const std::string of = &reference == &best ? "the fastest" : "the fastest backend that also ran at " + e.precision;
  return strf("%.1f samples/s, %.0f%% of %s (%s %s)", e.result.samples_per_second, 100 * share_of(e, reference),
              of.c_str(), reference.backend.c_str(), reference.precision.c_str());
}

// What a second round (the entry's own, or its precision's) measured, when it had one: " (its second round: jit
// bf16 at 66% of eager fp32)".
std::string second_round(const ScreenRecheck* r, const std::vector<ScreenEntry>& entries) {
  if (!r) return "";
  const ScreenEntry& pair = entries[r->pair];
  const ScreenEntry& reference = entries[r->reference];
  if (!r->share)
    return strf(" (its second round, %s %s against %s %s, did not run)", pair.backend.c_str(),
                pair.precision.c_str(), reference.backend.c_str(), reference.precision.c_str());
  return strf(" (its second round: %s %s at %.0f%% of %s %s)", pair.backend.c_str(), pair.precision.c_str(),
              100 * *r->share, reference.backend.c_str(), reference.precision.c_str());
}

std::string dropped_reason(const std::string& figures, double keep_share, bool two_rounds) {
  return strf("dropped: %s, below the %.0f%% kept by more than the screen's noise band (%.0f%%); %s", figures.c_str(),
              100 * keep_share, 100 * kScreenNoiseShare, two_rounds ? "in both rounds" : "indicative: one trial each");
}

// Whether a second round ran and put its pair within the band.
bool within_band_again(const ScreenRecheck* second, double keep_share) {
  return second && second->share && within_band(*second->share, keep_share);
}

// The verdict on one entry that ran.
void judge_entry(ScreenEntry& e, const std::vector<ScreenEntry>& entries, const std::string& native_backend,
                 double keep_share, const std::vector<ScreenRecheck>& rechecks) {
  const std::string figures = screen_figures(e, entries);
  const ScreenRecheck* second = recheck_of(rechecks, e.precision);
  const ScreenRecheck* own = own_recheck(rechecks, static_cast<size_t>(&e - entries.data()));
  if (share_of(e, *reference_for(entries, e.precision)) >= keep_share) {
    e.reason = "kept: " + figures;
  } else if (can_win(e, entries, keep_share)) {
    e.reason = strf("kept: %s, within the screen's noise band (%.0f%%) of the %.0f%% kept: one trial does not drop "
                    "it, its search decides", figures.c_str(), 100 * kScreenNoiseShare, 100 * keep_share);
  } else if (!precision_can_win(entries, e.precision, keep_share, rechecks)) {
    e.kept = false;
    e.reason = dropped_reason(figures, keep_share, second && second->share);
  } else if (e.backend == native_backend) {
    e.reason = "kept as the baseline of " + e.precision + "'s speed-ups: " + figures;
  } else if (&e == fastest_compiler(entries, e.precision, native_backend)) {
    e.reason = "kept as " + e.precision + "'s fastest compiler, to measure whether compiling pays off: " + figures;
  } else if (within_band_again(own, keep_share)) {
    e.reason = strf("kept: %s, but its second round put it within the screen's noise band (%.0f%%) of the %.0f%% "
                    "kept: its search decides", figures.c_str(), 100 * kScreenNoiseShare, 100 * keep_share);
  } else {
    e.kept = false;
    e.reason = dropped_reason(figures, keep_share, own && own->share);
  }
  e.reason += second_round(own ? own : second, entries);
}

// Round 1 would drop this entry of a precision it keeps: a compiler, not that precision's fastest, below the band.
bool dropped_within_kept_precision(const ScreenEntry& e, const std::vector<ScreenEntry>& entries,
                                   const std::string& native_backend, double keep_share) {
  return e.result.ok() && e.backend != native_backend && !can_win(e, entries, keep_share) &&
         precision_can_win(entries, e.precision, keep_share, {}) &&
         &e != fastest_compiler(entries, e.precision, native_backend);
}

}  // namespace

std::vector<ScreenRecheck> screen_rechecks(const std::vector<ScreenEntry>& entries, const std::string& native_backend,
                                           double keep_share) {
  std::vector<std::string> precisions;
  for (const auto& e : entries)
    if (std::find(precisions.begin(), precisions.end(), e.precision) == precisions.end())
      precisions.push_back(e.precision);
  std::vector<ScreenRecheck> out;
  for (const std::string& precision : precisions) {
    const ScreenEntry* pair = fastest(entries, [&](const ScreenEntry& e) { return e.precision == precision; });
    if (!pair || precision_can_win(entries, precision, keep_share, {})) continue;
    const ScreenEntry* reference = reference_for(entries, precision);
    if (share_of(*pair, *reference) < kRecheckFloorShare) continue;
    out.push_back({precision, false, static_cast<size_t>(pair - entries.data()),
                   static_cast<size_t>(reference - entries.data()), std::nullopt});
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const ScreenEntry& e = entries[i];
    if (!dropped_within_kept_precision(e, entries, native_backend, keep_share)) continue;
    const ScreenEntry* reference = reference_for(entries, e.precision);
    if (share_of(e, *reference) < kRecheckFloorShare) continue;
    out.push_back({e.precision, true, i, static_cast<size_t>(reference - entries.data()), std::nullopt});
  }
  return out;
}

void judge_screen(std::vector<ScreenEntry>& entries, const std::string& native_backend, double keep_share,
                  const std::vector<ScreenRecheck>& rechecks) {
  for (auto& e : entries) {
    if (e.result.ok()) {
      judge_entry(e, entries, native_backend, keep_share, rechecks);
    } else {
      e.kept = false;
      e.reason = "dropped: " + to_string(e.result.status) + ": " + e.result.error_message;
    }
  }
}

}  // namespace tune
