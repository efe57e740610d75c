// The factory table of the in-process backends: one line per TrainStep class, keyed by the class's kName, which
// is its registry entry's name (StepFactory.* checks that every in-process entry has a factory and every factory
// an entry). Adding an in-process backend adds its line here (trial/backend_registry.h says what else).
#include "trial/step_factory.h"

#include <stdexcept>

#include "compile/cuda_graph_step.h"
#include "compile/eager_step.h"
#include "compile/jit_step.h"

namespace tune {
namespace {

using StepMaker = std::unique_ptr<TrainStep> (*)(TrainableModel, const StepOptions&);

struct StepFactory {
  const char* name;
  StepMaker make;
};

template <typename Step>
StepFactory factory_of() {
  return {Step::kName, [](TrainableModel model, const StepOptions& options) -> std::unique_ptr<TrainStep> {
            return std::make_unique<Step>(std::move(model), options);
          }};
}

const std::vector<StepFactory>& step_factories() {
  static const std::vector<StepFactory> table{factory_of<EagerStep>(), factory_of<JitStep>(),
                                              factory_of<CudaGraphStep>()};
  return table;
}

// "eager, jit or cuda-graph": the names with a factory.
std::string names_with_a_factory() {
  const auto& table = step_factories();
  std::string text;
  for (size_t i = 0; i < table.size(); ++i)
    text += std::string(i == 0 ? "" : i + 1 == table.size() ? " or " : ", ") + table[i].name;
  return text;
}

}  // namespace

std::unique_ptr<TrainStep> make_train_step(const std::string& backend, TrainableModel model,
                                           const StepOptions& options) {
  for (const auto& f : step_factories())
    if (backend == f.name) return f.make(std::move(model), options);
  throw std::invalid_argument("backend '" + backend + "': expected " + names_with_a_factory());
}

std::vector<std::string> step_factory_names() {
  std::vector<std::string> names;
  for (const auto& f : step_factories()) names.push_back(f.name);
  return names;
}

}  // namespace tune
