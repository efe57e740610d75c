// The in-process backends against the registry: every in-process entry has a factory and every factory an entry,
// each factory's step names its entry, and each in-process backend's tiny trial runs on this machine's devices
// (tests/backend_contract.h; the Python-worker backends' contract runs with the Inductor tests).
#include <gtest/gtest.h>

#include <algorithm>

#include "backend_contract.h"
#include "models/model_factory.h"
#include "trial/step_factory.h"

using namespace tune;

TEST(StepFactory, EveryInProcessEntryHasAFactoryAndEveryFactoryAnEntry) {
  const std::vector<std::string> factories = step_factory_names();
  const std::vector<std::string> in_process = backend_names(BackendRoute::in_process);
  for (const auto& name : in_process)
    EXPECT_NE(std::find(factories.begin(), factories.end(), name), factories.end())
        << "registered in-process backend '" << name << "' has no line in trial/step_factory.cpp";
  for (const auto& name : factories)
    EXPECT_NE(std::find(in_process.begin(), in_process.end(), name), in_process.end())
        << "factory '" << name << "' is not a registered in-process backend (trial/backend_registry.cpp)";
  EXPECT_EQ(factories.size(), in_process.size());
}

// The step a factory builds says it is its entry's backend (the name the trial's log and the store use).
TEST(StepFactory, EachFactorysStepNamesItsEntry) {
  const ModelConfig c = resolve_model("bert-tiny");
  for (const auto& name : step_factory_names())
    EXPECT_EQ(make_train_step(name, build_model(c, 0), StepOptions{})->backend(), name);
}

// A name without a factory (a Python-worker backend, a typo) is refused with the names that have one.
TEST(StepFactory, ANameWithoutAFactoryIsRefusedWithThoseThatHaveOne) {
  const ModelConfig c = resolve_model("bert-tiny");
  const std::string error = tune::testing::error_of([&] { make_train_step("inductor", build_model(c, 0), {}); });
  EXPECT_EQ(error, "backend 'inductor': expected eager, jit or cuda-graph");
}

class BackendContract : public ::testing::TestWithParam<std::string> {};

TEST_P(BackendContract, TinyTrialEndsOkOnEachDeviceItRunsOn) { tune::testing::expect_backend_contract(GetParam()); }

INSTANTIATE_TEST_SUITE_P(InProcess, BackendContract,
                         ::testing::ValuesIn(backend_names(BackendRoute::in_process)),
                         tune::testing::case_name);
