// The libtorch side of the observers (trial/observer_registry.h): each attaches to one trial step's model and acts
// around its steps as a user's tool would. A step loop calls begin_block/end_block around a block of the step's
// own steps (untimed: where a paired trial turns a process-wide tool on and off between its members' blocks) and
// before_step/after_step around each step (timed: the tool's cost per step).
#pragma once
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "models/model_factory.h"
#include "trial/trial_spec.h"

namespace tune {

class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void begin_block() {}
  virtual void end_block() {}
  // `step`: the trial's step index from 0. May throw (a tool's own failure ends the trial as crashed).
  virtual void before_step(int step) { (void)step; }
  virtual void after_step(int step, const torch::Tensor& loss) { (void)step, (void)loss; }
  // Untimed, after the last step: writes what the tool keeps to the end (a profiler's trace); then what it did,
  // one line for the result ("traced 5 steps, 12345 events; trace in DIR/trace.json").
  virtual std::string finish() = 0;
  // After finish: what the tool could not do on this step, said beside its cost ("" when it did all of it).
  virtual std::string caveat() const { return ""; }
};

// Where an observer writes (out_dir, made here) and the fault-matrix hook: the observer throws before step
// `fails_at_step` (1-based; 0: never).
struct ObserverPlace {
  std::string out_dir;
  std::string device = "cpu";
  int fails_at_step = 0;
};

// The observer for `label` ("profiler", "tensor-stats:10") attached to `model` (the one the step trains; the
// tensor-stats observer hooks its parameters). Throws std::invalid_argument for a label the registry rejects.
std::unique_ptr<StepObserver> make_step_observer(const std::string& label, const TrainableModel& model,
                                                 const ObserverPlace& place);

// The observer a trial's spec names (step.observer) on `model`, writing under work_dir/observers/LABEL (':' as '-',
// as the Python worker's; work_dir "" is the current folder), failing where its test hook says; nothing when the
// spec names none.
std::unique_ptr<StepObserver> make_trial_observer(const TrialSpec& spec, const TrainableModel& model,
                                                  const std::string& work_dir);

// The statistics a debugger takes of one tensor, in the order written: norm (2-norm), min, max, mean, and the
// counts of NaN and inf elements; in fp32 whatever the tensor's type (an fp16 tensor's norm overflows).
struct TensorStats {
  double norm = 0, min = 0, max = 0, mean = 0;
  int64_t nan_count = 0, inf_count = 0;
};
TensorStats tensor_stats(const torch::Tensor& t);

}  // namespace tune
