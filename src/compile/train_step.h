// The training-step backend interface: prepare (compile) a step for a batch shape, then run steps.
// A backend owns its optimizer; gradients always land on the model's own parameters.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/batch.h"
#include "models/model_factory.h"

namespace tune {

// What preparing a step cost and did, for the "compiled training step" log line and the store.
struct CompileReport {
  double seconds = 0;
  std::string info;  // backend-specific: graph nodes, fusion groups, ...
};

// Raised when a backend cannot compile the step: becomes status compile_error, with the stage.
struct CompileError : std::runtime_error {
  CompileError(std::string stage_name, const std::string& message)
      : std::runtime_error(message), stage(std::move(stage_name)) {}
  std::string stage;
};

class TrainStep {
 public:
  virtual ~TrainStep() = default;
  // The registry's name of the backend (trial/backend_registry.h); each class keeps it as its kName.
  virtual std::string backend() const = 0;
  // Compiles for batches shaped like `example`. Throws CompileError.
  virtual CompileReport prepare(const Batch& example) = 0;
  // One optimizer step (zero grads, forward, backward, update). Returns the detached loss.
  virtual torch::Tensor step(const Batch& batch) = 0;
  // The rate of the next steps (a schedule sets it before each step). Throws std::logic_error where the
  // backend cannot change it.
  virtual void set_learning_rate(double learning_rate);
  // Data-parallel training: `sync` runs after each step's backward and before its update (the gradient all-reduce,
  // compile/gradient_reducer.h). Throws std::logic_error where the backend has no such point between the two.
  virtual void set_gradient_sync(std::function<void()> sync);
  // What the backend learned while running (e.g. fusion groups after the optimizing run).
  virtual std::string runtime_info() const { return ""; }
};

// How a backend runs the step, besides what it compiles: numerics and optimizer are knobs the search turns.
struct StepOptions {
  double learning_rate = 1e-4;
  std::string precision = "fp32";   // fp32 | bf16 | fp16 (see TrialSpec)
  std::string optimizer = "adamw";  // adamw | fused
  bool scheduled_rate = false;      // the rate changes between steps (set_learning_rate): kept where a graph reads it
};

}  // namespace tune
