// A paired trial: the spec's backend and each of its paired backends (tune regress), or the spec's backend without
// and with each of its observers (an observer trial), each member with its own seeded model copy and optimizer,
// timed in alternating blocks (A B, B A, ...) after warm-up. A libtorch member runs in this process, a
// Python-worker one (inductor) in a worker of its own, idle while the others' blocks run.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// The order of the backends' blocks in `round`: as given on even rounds, reversed on odd ones, so each
// backend runs as often just before another as just after it (drift and warm caches favour none).
std::vector<size_t> paired_block_order(size_t backends, int round);

// The trial's body in this process (run_trial_in_process calls it for TrialPurpose::paired): the result
// describes the first member (spec.backend as the spec has it); result.paired holds every member's block times and
// loss curve, with its observer's summary. Each member keeps its own random stream, so its curve is the one a trial
// of it alone would train. Observers write under work_dir/observers/LABEL; Python members' batches go to work_dir.
// Throws std::invalid_argument for a paired spec without paired backends or observers, rounds or block steps.
TrialResult run_paired_trial_body(const TrialSpec& spec, const std::string& work_dir = "");

}  // namespace tune
