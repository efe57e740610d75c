// The backend registry: the one place that says what a training-step backend is. Each entry gives its name (the
// study label's first part, TrialSpec's step.backend), the device kinds it runs on, its route (built in this process
// by a libtorch factory, or stepped by the Python worker), its role (the native baseline, a compiler, or a
// reference that is neither), the torch.compile modes and ":dynamic" suffix its labels may carry, and whether the
// default coverage (`--backends auto`) searches it. Torch-free: the CLI's checks, the engine's defaults and the
// report's columns ask it, as the trial does when it picks the route.
//
// Adding a backend:
//   - an in-process one (libtorch): its TrainStep class in src/compile (a new .cpp goes into
//     src/compile/CMakeLists.txt), its kName equal to the entry's name; its entry in the table of
//     trial/backend_registry.cpp (registered_backends); its line in the factory table of trial/step_factory.cpp.
//   - a Python-worker one: its entry in that table; its line in BACKENDS of src/trial/python_worker.py and what the
//     worker does for it there (TrainStep, compile_account).
// Nothing else names it: labels, `--backends` and `tune trial --backend` checks, help texts, the default coverage,
// tune regress's default compiled set and the report's compiled column follow the entry. The tests check the rest:
// BackendRegistry.* (the table itself), StepFactory.* (every in-process entry has a factory, every factory an
// entry), PythonWorkerBackends.* (the worker's BACKENDS are the registry's Python-worker entries), and
// BackendContract.* runs every entry's tiny bert-tiny trial on each device of the machine it runs on.
#pragma once
#include <string>
#include <vector>

namespace tune {

struct StepSettings;  // trial/trial_spec.h

// How a trial runs a backend's steps (trial/trial_runner.cpp picks by it).
enum class BackendRoute {
  in_process,     // a TrainStep from trial/step_factory.h, stepped in the trial process
  python_worker,  // src/trial/python_worker.py, driven over the worker protocol (trial/python_trial.h)
};

// What a backend is to the comparisons (the screen, the table, tune regress).
enum class BackendRole {
  native,     // the baseline of every speed-up: eager libtorch (kNativeBackend)
  compiler,   // compiles the step; its speed-up over native is the question
  reference,  // neither: a comparison row (hf-eager, Hugging Face's module run eagerly in Python)
};

struct BackendInfo {
  std::string name;
  std::string summary;                     // one line, for help texts and readers
  std::vector<std::string> devices;        // device kinds it runs on: "cpu", "cuda" (see device_kind)
  BackendRoute route = BackendRoute::in_process;
  BackendRole role = BackendRole::compiler;
  std::vector<std::string> compile_modes;  // ":MODE" label suffixes (torch.compile modes); the bare label is "default"
  bool dynamic_suffix = false;             // its labels may end in ":dynamic" (dynamic shapes)
  bool default_coverage = false;           // `--backends auto` searches it on every device it runs on
  // Its compiles go through a cache that outlives the process (Inductor's FX-graph and AOTAutograd caches), so a
  // job where the same model compiled before compiles warm; the others compile again in every process.
  bool persistent_compile_cache = false;

  bool runs_on(const std::string& device) const;  // a torch device string: cpu, cuda, cuda:1
  bool has_label_variants() const { return !compile_modes.empty() || dynamic_suffix; }
  std::vector<std::string> labels() const;        // the bare name, then each mode's, each with ":dynamic" after it
};

// The native step (eager libtorch): the baseline of every speed-up, the screen's and the table's.
constexpr const char* kNativeBackend = "eager";

// Not a label: the paired-backend name of tune regress's calibration workload (trial/calibration_step.h).
constexpr const char* kCalibrationBackend = "calibration";

// The compile mode of a bare label (TrialSpec's step.compile_mode when no ":MODE" is given).
constexpr const char* kDefaultCompileMode = "default";

// Every registered backend, in the registry's order (the default coverage's order).
const std::vector<BackendInfo>& registered_backends();

// The entry whose name is the label's first part ("inductor:dynamic" -> inductor); nullptr for an unregistered one
// (the engine's tests run backends of their own, an older database may hold others).
const BackendInfo* find_backend(const std::string& label);

// "cuda" for any CUDA device string (cuda, cuda:1), else the string itself: what BackendInfo::devices lists.
std::string device_kind(const std::string& device);

// Every accepted label: the backends without variants, then each one's variants (inductor, inductor:dynamic,
// inductor:max-autotune-no-cudagraphs, ...), in registry order.
std::vector<std::string> backend_labels();

// The label forms for a help text: "eager, jit, inductor[:MODE][:dynamic], cuda-graph, hf-eager".
std::string backend_label_forms();

// Throws std::invalid_argument quoting a label that is not one of backend_labels(), listing those.
void check_backend_label(const std::string& label);

// Sets the step's backend, compile_mode and dynamic_shapes from a label ("NAME[:MODE][:dynamic]"). It only
// splits the label: the CLI checks labels first, and the engine's tests use backends of their own.
void apply_backend_label(StepSettings& step, const std::string& label);

// Whether the label's backend runs in the Python worker (route python_worker) rather than in this process.
bool runs_in_python(const std::string& label);

// Whether the label's backend compiles through a cache that outlives the process (persistent_compile_cache); false
// for an unregistered one.
bool keeps_compile_cache(const std::string& label);

// Whether the label's backend compiles the step (role compiler): the table's compiled column. An unregistered
// label counts as a compiler, as any backend but the native one and the reference always has.
bool is_compiler(const std::string& label);

// The names of the backends with this route, in registry order.
std::vector<std::string> backend_names(BackendRoute route);

// The backends `--backends auto` searches on `device`, in registry order.
std::vector<std::string> default_backends_on(const std::string& device);

// The compilers a paired trial can run on `device` (route in_process): tune regress's default compiled set.
std::vector<std::string> in_process_compilers_on(const std::string& device);

}  // namespace tune
