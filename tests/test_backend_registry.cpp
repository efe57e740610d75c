// The backend registry (trial/backend_registry.h): the labels it accepts and their error are the ones studies are
// keyed by, its table holds together (one native entry, known devices, labels that map back to their entry), and
// the questions the CLI, engine, report and tune regress ask it answer as those callers always decided.
#include <gtest/gtest.h>

#include <set>

#include "regress/config.h"
#include "test_helpers.h"
#include "trial/backend_registry.h"
#include "trial/trial_spec.h"

using namespace tune;

// Study keys hold these labels (committed databases in reports/): the list is exact, in this order.
TEST(BackendRegistry, TheAcceptedLabelsAreTheStudyKeysLabels) {
  EXPECT_EQ(backend_labels(), (std::vector<std::string>{
                                  "eager", "jit", "cuda-graph", "hf-eager", "inductor", "inductor:dynamic",
                                  "inductor:max-autotune-no-cudagraphs", "inductor:max-autotune-no-cudagraphs:dynamic",
                                  "inductor:reduce-overhead", "inductor:reduce-overhead:dynamic", "inductor:regional",
                                  "inductor:regional:dynamic"}));
  EXPECT_EQ(tune::testing::error_of([] { check_backend_label("xla"); }),
            "backend 'xla': expected one of eager, jit, cuda-graph, hf-eager, inductor, inductor:dynamic, "
            "inductor:max-autotune-no-cudagraphs, inductor:max-autotune-no-cudagraphs:dynamic, "
            "inductor:reduce-overhead, inductor:reduce-overhead:dynamic, inductor:regional, inductor:regional:dynamic");
  EXPECT_EQ(backend_label_forms(), "eager, jit, inductor[:MODE][:dynamic], cuda-graph, hf-eager");
}

TEST(BackendRegistry, TheTableHoldsTogether) {
  std::set<std::string> names;
  int natives = 0;
  for (const auto& b : registered_backends()) {
    EXPECT_TRUE(names.insert(b.name).second) << "two entries named " << b.name;
    EXPECT_EQ(b.name.find(':'), std::string::npos) << b.name << ": ':' starts a label's suffix";
    EXPECT_FALSE(b.summary.empty()) << b.name;
    EXPECT_FALSE(b.devices.empty()) << b.name;
    for (const auto& device : b.devices) EXPECT_TRUE(device == "cpu" || device == "cuda") << b.name << ": " << device;
    if (b.role == BackendRole::native) {
      ++natives;
      EXPECT_EQ(b.name, kNativeBackend);
      EXPECT_EQ(b.route, BackendRoute::in_process) << "the baseline runs in libtorch, in the trial process";
      EXPECT_TRUE(b.runs_on("cpu") && b.default_coverage);
    }
    for (const auto& label : b.labels()) {
      EXPECT_EQ(find_backend(label), &b) << label;
      StepSettings step;
      apply_backend_label(step, label);
      EXPECT_EQ(step.backend, b.name) << label;
    }
  }
  EXPECT_EQ(natives, 1);
  EXPECT_EQ(find_backend("broken"), nullptr);
  EXPECT_EQ(StepSettings{}.backend, kNativeBackend);
}

// What the callers decided by name before the registry, now asked of it: the route, the report's compiled column,
// the default coverage per device, tune regress's default compiled set.
TEST(BackendRegistry, ItsAnswersAreTheCallersFormerDecisions) {
  EXPECT_TRUE(runs_in_python("inductor") && runs_in_python("inductor:reduce-overhead:dynamic"));
  EXPECT_TRUE(runs_in_python("hf-eager"));
  EXPECT_FALSE(runs_in_python("eager") || runs_in_python("jit") || runs_in_python("cuda-graph"));
  EXPECT_FALSE(runs_in_python("broken")) << "an unregistered backend is the in-process factory's to refuse";
  EXPECT_TRUE(is_compiler("jit") && is_compiler("cuda-graph") && is_compiler("inductor:dynamic"));
  EXPECT_FALSE(is_compiler(kNativeBackend));
  EXPECT_FALSE(is_compiler("hf-eager")) << "a reference row: neither native nor compiled";
  EXPECT_TRUE(is_compiler("slowcompile")) << "an unregistered label counts as compiled, as it always did";
  EXPECT_EQ(default_backends_on("cpu"), (std::vector<std::string>{"eager", "jit", "inductor"}));
  for (const char* gpu : {"cuda", "cuda:1"})
    EXPECT_EQ(default_backends_on(gpu), (std::vector<std::string>{"eager", "jit", "inductor", "cuda-graph"})) << gpu;
  EXPECT_EQ(in_process_compilers_on("cpu"), (std::vector<std::string>{"jit"}));
  EXPECT_EQ(RegressionConfig{}.native_backend, kNativeBackend);
  EXPECT_EQ(RegressionConfig{}.compiled_backends, (std::vector<std::string>{"jit"}));
}
