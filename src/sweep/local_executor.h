// The local executor: each study's script run here, one after another, so no two timed searches share the CPUs.
// submit returns when the studies it was given have ended.
#pragma once
#include "sweep/executor.h"

namespace tune {

class LocalExecutor : public Executor {
 public:
  LocalExecutor(SweepSpec spec, std::string tune_executable);
  void submit(const std::vector<PlannedStudy>& studies, SweepState& state) override;
  void poll(SweepState&) override {}  // nothing runs between submits
  void cancel(SweepState& state) override;
  bool runs_in_place() const override { return true; }

 private:
  SweepSpec spec_;
  std::string tune_;
};

}  // namespace tune
