// TEST ONLY: faults a trial child injects into itself when TUNE_TEST_FAULT names one, so that the fault matrix
// (scripts/faults) shows what tune makes of a child that misbehaves. Unset, as everywhere else, nothing happens.
#pragma once
#include <string>

#include "trial/trial_spec.h"

namespace tune {

enum class InjectedFault {
  none,
  result_truncated,  // result.json cut in half
  result_empty,      // result.json of zero bytes
  result_garbage,    // result.json of bytes that are no JSON
  result_missing,    // exit 0 without a result.json
  hang,              // every catchable signal blocked, then sleeps for ever (only SIGKILL ends it)
  grandchild,        // forks a process in its group that sleeps an hour, then trains as usual
  observer_throws,   // the trial's observer (a tool attached to the step) throws at step 3 (observer trials only)
  rank_killed,       // a data-parallel trial's rank 1 SIGKILLs itself at its step 3 (TestHooks::rank_fault)
  rank_hangs,        // ... blocks every signal and sleeps at its step 3
};

// The fault TUNE_TEST_FAULT names for a trial at this batch size (TUNE_TEST_FAULT_BATCH=N: at that size only).
// Throws std::invalid_argument quoting a value that names no fault.
InjectedFault injected_fault(int batch_size);
// Before the trial runs: hang and grandchild.
void inject_before_trial(InjectedFault fault);
// The spec as the fault runs it: observer_throws and the rank faults set its test hooks (others leave it as it is).
void inject_into_spec(InjectedFault fault, TrialSpec& spec);
// After the result file `out` is written: the result_* faults damage or remove it.
void inject_after_result(InjectedFault fault, const std::string& out);

}  // namespace tune
