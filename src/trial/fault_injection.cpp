// The injected faults, each as a user's broken child would show it: damaged result files, a process that no
// catchable signal stops, a grandchild left running in the trial's process group.
#include "trial/fault_injection.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

namespace tune {

InjectedFault injected_fault(int batch_size) {
  static const std::map<std::string, InjectedFault> kFaults = {
      {"result-truncated", InjectedFault::result_truncated}, {"result-empty", InjectedFault::result_empty},
      {"result-garbage", InjectedFault::result_garbage},     {"result-missing", InjectedFault::result_missing},
      {"hang", InjectedFault::hang},                         {"grandchild", InjectedFault::grandchild},
      {"observer-throws", InjectedFault::observer_throws}, {"rank-killed", InjectedFault::rank_killed},
      {"rank-hangs", InjectedFault::rank_hangs}};
  const char* name = std::getenv("TUNE_TEST_FAULT");
  if (name == nullptr || *name == '\0') return InjectedFault::none;
  const auto found = kFaults.find(name);
  if (found == kFaults.end())
    throw std::invalid_argument(std::string("TUNE_TEST_FAULT '") + name + "': expected result-truncated, "
                                "result-empty, result-garbage, result-missing, hang, grandchild, observer-throws, rank-killed or rank-hangs");
  const char* batch = std::getenv("TUNE_TEST_FAULT_BATCH");
  if (batch != nullptr && *batch != '\0' && std::atoi(batch) != batch_size) return InjectedFault::none;
  return found->second;
}

void inject_before_trial(InjectedFault fault) {
  if (fault == InjectedFault::grandchild && fork() == 0) {
    sleep(3600);  // in the trial's process group, holding nothing: it only lingers
    _exit(0);
  }
  if (fault != InjectedFault::hang) return;
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, nullptr);  // the kernel ignores SIGKILL and SIGSTOP in the set
  for (;;) pause();
}

void inject_into_spec(InjectedFault fault, TrialSpec& spec) {
  if (fault == InjectedFault::observer_throws) spec.test.observer_fails_at_step = 3;
  if (fault == InjectedFault::rank_killed) spec.test.rank_fault = "kill";
  if (fault == InjectedFault::rank_hangs) {
    spec.test.rank_fault = "hang";
    spec.distributed.collective_timeout_seconds = 8;  // the matrix waits this long for the hung rank, not 2 min
  }
}

void inject_after_result(InjectedFault fault, const std::string& out) {
  namespace fs = std::filesystem;
  if (fault == InjectedFault::result_missing) fs::remove(out);
  if (fault == InjectedFault::result_empty) std::ofstream(out, std::ios::trunc);
  if (fault == InjectedFault::result_garbage) std::ofstream(out, std::ios::trunc) << "\x01\xfe not json {{{";
  if (fault == InjectedFault::result_truncated) fs::resize_file(out, fs::file_size(out) / 2);
}

}  // namespace tune
