// What a data-parallel trial's result says (trial/data_parallel.h): its scaling efficiency over the paired rounds
// (rank 0 alone against all ranks), the share of a step spent waiting for communication, and the sentence a row says.
#pragma once
#include <string>

#include "stats/paired_ratio.h"
#include "trial/trial_result.h"

namespace tune {

// Per round, solo over parallel seconds per step: samples/s of N ranks over N times one rank's at the same batch
// (1: perfect scaling). Their geometric mean and 95% interval; unconfirmed under two rounds.
PairedRatio scaling_efficiency(const DataParallelPart& d);

// The median exposed communication (rank 0's wait for the all-reduce after backward) over the median parallel step
// time: the share of a step the overlap did not hide. 0 without figures.
double exposed_comm_share(const DataParallelPart& d);

// "2 ranks x batch 4 (gloo): scaling efficiency 0.81 (95% CI 0.75-0.88, 4 rounds), communication not hidden by
// the backward 9% of a step, peak memory per rank 412-415 MiB"; "" for a trial that is not data-parallel.
std::string describe_data_parallel(const DataParallelPart& d);

}  // namespace tune
