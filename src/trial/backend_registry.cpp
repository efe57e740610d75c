// The backend registry's table and the questions the rest of tune asks it (trial/backend_registry.h says how to
// add a backend). Labels: one per study, so the search keys each torch.compile variant apart and compares them in
// one run; a label's text is a study key, so the forms here must keep reading the committed databases.
#include "trial/backend_registry.h"

#include <algorithm>
#include <stdexcept>

#include "instance/instance.h"
#include "trial/trial_spec.h"
#include "util/join.h"

namespace tune {
namespace {

constexpr const char* kDynamicSuffix = "dynamic";

std::string name_of(const std::string& label) { return label.substr(0, label.find(':')); }

}  // namespace

// The table. Its order is the default coverage's (eager, jit, inductor, then cuda-graph on a GPU); a function's
// static, so code that runs before main (a static initializer elsewhere) finds it built.
const std::vector<BackendInfo>& registered_backends() {
  static const std::vector<BackendInfo> backends{
    // name, summary, devices, route, role, compile modes, ":dynamic" suffix, default coverage, persistent cache
    {kNativeBackend, "eager libtorch: the training step as a plain libtorch user writes it (the baseline)",
     {"cpu", "cuda"}, BackendRoute::in_process, BackendRole::native, {}, false, true},
    {"jit", "TorchScript: the training forward traced from C++, run by the graph executor and its fusers",
     {"cpu", "cuda"}, BackendRoute::in_process, BackendRole::compiler, {}, false, true},
    {"inductor", "torch.compile (Inductor) of Hugging Face's module, in the Python worker",
     {"cpu", "cuda"}, BackendRoute::python_worker, BackendRole::compiler,
     {"max-autotune-no-cudagraphs", "reduce-overhead", "regional"}, true, true, true},
    {"cuda-graph", "the whole training step captured into a CUDA graph once, then replayed",
     {"cuda"}, BackendRoute::in_process, BackendRole::compiler, {}, false, true},
    {"hf-eager", "Hugging Face's module run eagerly in the Python worker: a reference row, not compiled",
     {"cpu", "cuda"}, BackendRoute::python_worker, BackendRole::reference, {}, false, false},
  };
  return backends;
}

bool BackendInfo::runs_on(const std::string& device) const {
  return std::find(devices.begin(), devices.end(), device_kind(device)) != devices.end();
}

std::vector<std::string> BackendInfo::labels() const {
  std::vector<std::string> out;
  std::vector<std::string> modes{kDefaultCompileMode};
  modes.insert(modes.end(), compile_modes.begin(), compile_modes.end());
  for (const auto& mode : modes) {
    const std::string base = mode == kDefaultCompileMode ? name : name + ":" + mode;
    out.push_back(base);
    if (dynamic_suffix) out.push_back(base + ":" + kDynamicSuffix);
  }
  return out;
}

const BackendInfo* find_backend(const std::string& label) {
  const std::string name = name_of(label);
  for (const auto& b : registered_backends())
    if (b.name == name) return &b;
  return nullptr;
}

std::string device_kind(const std::string& device) { return is_cuda_device(device) ? "cuda" : device; }

std::vector<std::string> backend_labels() {
  std::vector<std::string> labels;
  for (const auto& b : registered_backends())
    if (!b.has_label_variants()) labels.push_back(b.name);
  for (const auto& b : registered_backends())
    if (b.has_label_variants())
      for (const auto& label : b.labels()) labels.push_back(label);
  return labels;
}

std::string backend_label_forms() {
  std::vector<std::string> forms;
  for (const auto& b : registered_backends())
    forms.push_back(b.name + (b.compile_modes.empty() ? "" : "[:MODE]") + (b.dynamic_suffix ? "[:dynamic]" : ""));
  return join(forms);
}

void check_backend_label(const std::string& label) {
  const auto labels = backend_labels();
  if (std::find(labels.begin(), labels.end(), label) == labels.end())
    throw std::invalid_argument("backend '" + label + "': expected one of " + join(labels));
}

void apply_backend_label(StepSettings& step, const std::string& label) {
  const auto colon = label.find(':');
  step.backend = label.substr(0, colon);
  step.compile_mode = kDefaultCompileMode;
  step.dynamic_shapes = false;
  if (colon == std::string::npos) return;
  std::string rest = label.substr(colon + 1);
  const std::string dynamic = kDynamicSuffix;
  if (rest.size() >= dynamic.size() && rest.compare(rest.size() - dynamic.size(), dynamic.size(), dynamic) == 0) {
    step.dynamic_shapes = true;
    rest = rest.size() > dynamic.size() ? rest.substr(0, rest.size() - dynamic.size() - 1) : "";
  }
  if (!rest.empty()) step.compile_mode = rest;
}

bool runs_in_python(const std::string& label) {
  const BackendInfo* b = find_backend(label);
  return b && b->route == BackendRoute::python_worker;
}

bool keeps_compile_cache(const std::string& label) {
  const BackendInfo* b = find_backend(label);
  return b && b->persistent_compile_cache;
}

bool is_compiler(const std::string& label) {
  const BackendInfo* b = find_backend(label);
  return !b || b->role == BackendRole::compiler;
}

std::vector<std::string> backend_names(BackendRoute route) {
  std::vector<std::string> out;
  for (const auto& b : registered_backends())
    if (b.route == route) out.push_back(b.name);
  return out;
}

std::vector<std::string> default_backends_on(const std::string& device) {
  std::vector<std::string> out;
  for (const auto& b : registered_backends())
    if (b.default_coverage && b.runs_on(device)) out.push_back(b.name);
  return out;
}

std::vector<std::string> in_process_compilers_on(const std::string& device) {
  std::vector<std::string> out;
  for (const auto& b : registered_backends())
    if (b.route == BackendRoute::in_process && b.role == BackendRole::compiler && b.runs_on(device))
      out.push_back(b.name);
  return out;
}

}  // namespace tune
