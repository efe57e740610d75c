// A paired trial (tune regress): the spec's backend and each of its paired backends, each with its own seeded
// model copy and optimizer in this one process, timed in alternating blocks (A B, B A, ...) after warm-up.
#pragma once
#include <cstddef>
#include <vector>

#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

// The order of the backends' blocks in `round`: as given on even rounds, reversed on odd ones, so each
// backend runs as often just before another as just after it (drift and warm caches favour none).
std::vector<size_t> paired_block_order(size_t backends, int round);

// The trial's body in this process (run_trial_in_process calls it for TrialPurpose::paired): the result
// describes spec.backend; result.paired holds every backend's block times and loss curve. Each backend keeps
// its own random stream, so its curve is the one a trial of it alone would train. Throws
// std::invalid_argument for a paired spec without paired backends, rounds or block steps.
TrialResult run_paired_trial_body(const TrialSpec& spec);

}  // namespace tune
