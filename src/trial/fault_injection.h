// TEST ONLY: faults a trial child injects into itself when TUNE_TEST_FAULT names one, so that the fault matrix
// (scripts/faults) shows what tune makes of a child that misbehaves. Unset, as everywhere else, nothing happens.
#pragma once
#include <string>

namespace tune {

enum class InjectedFault {
  none,
  result_truncated,  // result.json cut in half
  result_empty,      // result.json of zero bytes
  result_garbage,    // result.json of bytes that are no JSON
  result_missing,    // exit 0 without a result.json
  hang,              // every catchable signal blocked, then sleeps for ever (only SIGKILL ends it)
  grandchild,        // forks a process in its group that sleeps an hour, then trains as usual
};

// The fault TUNE_TEST_FAULT names for a trial at this batch size (TUNE_TEST_FAULT_BATCH=N: at that size only).
// Throws std::invalid_argument quoting a value that names no fault.
InjectedFault injected_fault(int batch_size);
// Before the trial runs: hang and grandchild.
void inject_before_trial(InjectedFault fault);
// After the result file `out` is written: the result_* faults damage or remove it.
void inject_after_result(InjectedFault fault, const std::string& out);

}  // namespace tune
