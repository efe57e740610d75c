// The memory safety margin batch strategies keep once a size failed: a size whose peak sits at the edge of the
// limit can fail in a longer run, so the choice is the fastest size that leaves a share of memory free.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "tuners/candidate.h"

namespace tune {

// Whether `trial` leaves `margin` of memory free: its peak <= (1 - margin) x the limit when both are known, else
// its batch <= (1 - margin) x the first failing size (when one failed), else yes.
bool keeps_memory_margin(const ToldTrial& trial, int64_t memory_limit_bytes, int first_failed_batch, double margin);

// The fastest told size that keeps the margin; none when no size does.
std::optional<ToldTrial> fastest_within_margin(const std::vector<ToldTrial>& told, int64_t memory_limit_bytes,
                                               int first_failed_batch, double margin);

}  // namespace tune
