// Backend labels that --backends and `tune trial --backend` accept, and what each sets in a trial spec:
// inductor carries its torch.compile knobs as suffixes (inductor:max-autotune-no-cudagraphs:dynamic).
#pragma once
#include <string>
#include <vector>

#include "trial/trial_spec.h"

namespace tune {

// The native step (eager libtorch): the baseline of every speed-up, the screen's and the table's.
constexpr const char* kNativeBackend = "eager";

// Not a label: the paired-backend name of tune regress's calibration workload (trial/calibration_step.h).
constexpr const char* kCalibrationBackend = "calibration";

// torch.compile modes the inductor backend takes ("default" is the bare label).
extern const std::vector<std::string> kCompileModes;

// Every accepted label: eager, jit, cuda-graph, hf-eager, inductor and its mode / dynamic variants.
std::vector<std::string> backend_labels();

// Throws std::invalid_argument quoting a label that is not one of backend_labels(), listing those.
void check_backend_label(const std::string& label);

// Sets the step's backend, compile_mode and dynamic_shapes from a label ("NAME[:MODE][:dynamic]"). It only
// splits the label: the CLI checks labels first, and the engine's tests use backends of their own.
void apply_backend_label(StepSettings& step, const std::string& label);

// Backends whose steps run in the Python worker (src/trial/python_worker.py) rather than in libtorch.
bool runs_in_python(const std::string& backend);

}  // namespace tune
