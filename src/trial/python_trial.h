// A trial of a backend with no C++ route (inductor, hf-eager) runs its steps in the Python worker
// (src/trial/python_worker.py): which python and script, the worker protocol, and the trial over it.
//
// The protocol, JSON lines: requests on the worker's stdin, replies on its stdout (version kWorkerProtocol).
//   -> {"op": "start", "protocol": 3, "spec": SPEC, "batches": PATH, "dir": DIR}
//   <- {"ready": {"parameter_count": N, "block_steps": K}}
//   -> {"op": "steps", "n": N, "member": M}   (M: "parallel", the default; "solo" or "unsynced" on rank 0 of a
//                                              data-parallel trial: trial/worker_data_parallel.h)
//   <- {"steps": {"times": [s], "compile_seconds": [s], "losses": [x or "nan" / "inf" / "-inf"]}}
//   -> {"op": "evaluate", "batches": PATH}   (a classifier's held-out rows, after the last step: data/held_out.h)
//   <- {"evaluate": {"rows": N, "loss_sum": X, "correct": K}}   (eval mode, no gradients, fp32)
//   -> {"op": "finish"}
//   <- {"finish": {"compile_info": S, "compile_parts": {phase: s}, "compile_cache": S, "warnings": [S],
//                  "peak_memory_bytes": N, "observer_summary": S, "buckets": N}}
// Any reply but finish's may be {"failure": {"status": STATUS, "stage": S, "message": S}} (trial_status.h names);
// the worker then answers only "finish". The trial process keeps the measurement (trial/measurement.h): the loop,
// the stopping rule, the statistics and the result's fields; the worker builds HF's module, compiles and steps.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "trial/measurement.h"
#include "trial/trial_result.h"
#include "trial/trial_spec.h"

namespace tune {

constexpr int kWorkerProtocol = 3;  // 2: evaluate; 3: a step request's member, the finish's buckets

struct WorkerReady {
  int64_t parameter_count = 0;
  int block_steps = 1;
};
struct WorkerSteps {
  std::vector<double> times;
  std::vector<double> compile_seconds;
  std::vector<double> losses;  // non-finite ones as sent ("nan", "inf")
};
struct WorkerFinish {
  std::string compile_info;
  std::map<std::string, double> compile_parts;
  std::string compile_cache;  // TrialResult::compile_cache
  std::vector<std::string> warnings;
  int64_t peak_memory_bytes = 0;
  std::string observer_summary;  // the spec's observer: what it did (step_observers.py)
  int buckets = 0;               // a data-parallel rank's all-reduce buckets (DDPOptimizer's split when compiled)
};
struct WorkerFailure {
  TrialStatus status = TrialStatus::crashed;
  std::string stage;
  std::string message;
};

// $TUNE_PYTHON, else the python3 on PATH (the one scripts/setup installs torch into).
// Throws std::runtime_error naming what was looked for when there is none.
std::string python_executable();

// The worker script, src/trial/python_worker.py under tune_home(). Throws std::runtime_error when missing.
std::string python_worker_script();


// One worker process: started with its end of a socket pair on its stdin and stdout (its stderr is this process's,
// the trial's log), in this process's group, so a trial's timeout ends it too. Each request returns the reply, or a
// failure: the worker's own, a reply that breaks the protocol, or the worker's end (oom when killed by SIGKILL,
// else crashed, with how it ended). Throws std::runtime_error when the worker cannot be started.
class PythonWorker {
 public:
  explicit PythonWorker(const std::vector<std::string>& argv);
  ~PythonWorker();
  PythonWorker(const PythonWorker&) = delete;
  PythonWorker& operator=(const PythonWorker&) = delete;

  std::variant<WorkerReady, WorkerFailure> start(const TrialSpec& spec, const std::string& batches,
                                                 const std::string& dir);
  // n more steps of `member` (the trial's own: "parallel"); learning_rates (one per step, when not empty) is the
  // rate the worker sets before each.
  std::variant<WorkerSteps, WorkerFailure> steps(int n, const std::vector<double>& learning_rates = {},
                                                 const std::string& member = "parallel");
  // The trained module scored on the held-out batches at `batches`.
  std::variant<HeldOutScore, WorkerFailure> evaluate(const std::string& batches);
  std::optional<WorkerFinish> finish();  // nothing when the worker is gone
  // SIGKILLs the worker, from any thread (a request waiting on it then ends as the worker's end).
  void kill_process();

 private:
  template <typename Reply>
  std::variant<Reply, WorkerFailure> request(const nlohmann::json& request, const char* reply_key);
  std::optional<std::string> round_trip(const std::string& line);  // the reply's line; nothing when the worker ended
  WorkerFailure ended();
  std::atomic<pid_t> pid_{-1};
  int socket_ = -1;
  std::string buffer_;  // what came after the last reply's line
};

// The worker's steps as the measurement protocol asks for them; losses recorded, a failure set on the result.
class WorkerStepRunner : public StepRunner {
 public:
  WorkerStepRunner(const TrialSpec& spec, PythonWorker& worker, int block_steps, TrialResult& r)
      : spec_(spec), worker_(worker), block_steps_(block_steps), r_(r) {}
  std::optional<StepBlock> run(int n) override;
  int done() const override { return done_; }
  int block_steps() const override { return block_steps_; }

 private:
  const TrialSpec& spec_;  // its learning-rate schedule
  PythonWorker& worker_;
  int block_steps_;
  TrialResult& r_;
  int done_ = 0;
};

// A classifier's held-out batches for the worker to score the trained module on (empty path: none), and the entropy
// of their labels (the score's untrained loss, trial_result.h).
struct WorkerHeldOut {
  std::string batches_path;
  double label_entropy = 0;
};

// A whole trial on a worker started with `worker_argv` (default: python_executable() python_worker_script()),
// training on the batches at batches_path (trial/batch_dump.h), then scored on held_out's batches where it names
// them; a data-parallel spec runs one worker per rank (trial/worker_data_parallel.h, no held-out score, as in
// libtorch's route). Never throws for the trial's own failure.
TrialResult run_python_worker_trial(const TrialSpec& spec, const std::string& batches_path, const std::string& dir,
                                    std::vector<std::string> worker_argv = {}, const WorkerHeldOut& held_out = {});

// A finished trial's account from the worker's end: warnings, peak memory, compile account, observer summary.
void keep_worker_finish(const WorkerFinish& end, TrialResult& r);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WorkerReady, parameter_count, block_steps)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WorkerFinish, compile_info, compile_parts, compile_cache, warnings,
                                                peak_memory_bytes, observer_summary, buckets)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WorkerFailure, status, stage, message)
void from_json(const nlohmann::json& j, WorkerSteps& steps);

}  // namespace tune
