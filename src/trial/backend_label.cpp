// Backend labels: the plain backends by name, inductor with its compile mode and dynamic-shape suffixes.
// One label per study, so the search keys each torch.compile variant apart and can compare them in one run.
#include "trial/backend_label.h"

#include <algorithm>
#include <stdexcept>

#include "util/join.h"

namespace tune {

const std::vector<std::string> kCompileModes{"default", "max-autotune-no-cudagraphs", "reduce-overhead"};

std::vector<std::string> backend_labels() {
  std::vector<std::string> labels{"eager", "jit", "cuda-graph", "hf-eager"};
  for (const auto& mode : kCompileModes) {
    const std::string base = mode == "default" ? "inductor" : "inductor:" + mode;
    labels.push_back(base);
    labels.push_back(base + ":dynamic");
  }
  return labels;
}

void check_backend_label(const std::string& label) {
  const auto labels = backend_labels();
  if (std::find(labels.begin(), labels.end(), label) == labels.end())
    throw std::invalid_argument("backend '" + label + "': expected one of " + join(labels));
}

void apply_backend_label(StepSettings& step, const std::string& label) {
  const auto colon = label.find(':');
  step.backend = label.substr(0, colon);
  step.compile_mode = "default";
  step.dynamic_shapes = false;
  if (colon == std::string::npos) return;
  std::string rest = label.substr(colon + 1);
  const std::string dynamic = "dynamic";
  if (rest.size() >= dynamic.size() && rest.compare(rest.size() - dynamic.size(), dynamic.size(), dynamic) == 0) {
    step.dynamic_shapes = true;
    rest = rest.size() > dynamic.size() ? rest.substr(0, rest.size() - dynamic.size() - 1) : "";
  }
  if (!rest.empty()) step.compile_mode = rest;
}

bool runs_in_python(const std::string& backend) { return backend == "inductor" || backend == "hf-eager"; }

}  // namespace tune
