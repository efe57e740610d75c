// The observer registry (labels, lists, errors), the figures an observer trial's result gives (step-time ratio per
// round, its interval and verdict, graph counts from a compile account), and the Python worker's observers against
// the registry. No torch: the trials themselves are in test_step_observers.cpp.
#include <gtest/gtest.h>

#include "cli_run.h"
#include "test_helpers.h"
#include "trial/observer_overhead.h"
#include "trial/observer_registry.h"
#include "trial/python_trial.h"
#include "util/join.h"
#include "util/paths.h"
#include "util/table_format.h"

using namespace tune;

TEST(ObserverRegistry, LabelsParseToTheirCanonicalForm) {
  EXPECT_EQ(parse_observer("profiler").text(), "profiler");
  EXPECT_EQ(parse_observer("tensor-stats").interval, 1);
  EXPECT_EQ(parse_observer("tensor-stats:10").interval, 10);
  EXPECT_EQ(parse_observer("tensor-stats:10").text(), "tensor-stats:10");
  EXPECT_EQ(parse_observer("tensor-stats:1").text(), "tensor-stats");
  EXPECT_EQ(parse_observer_list("loss-log,anomaly,loss-log"), (std::vector<std::string>{"loss-log", "anomaly"}));
  EXPECT_EQ(parse_observer_list("all").size(), registered_observers().size());
}

TEST(ObserverRegistry, BadLabelsAreRefusedQuotingThem) {
  const auto message = [](const std::string& label) {
    try {
      parse_observer_list(label);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("debugger").find("observer 'debugger': expected one of profiler"), std::string::npos);
  EXPECT_NE(message("anomaly:5").find("anomaly takes no interval"), std::string::npos);
  EXPECT_NE(message("tensor-stats:0").find("the interval '0' is not a whole number"), std::string::npos);
  EXPECT_NE(message("tensor-stats:x").find("'x'"), std::string::npos);
  EXPECT_NE(message("profiler,").find("observer '': expected"), std::string::npos);
}

TEST(ObserverRegistry, ThePythonWorkersObserversAreTheRegistrys) {
  const std::string command = python_executable() + " -c 'import sys; sys.path.insert(0, sys.argv[1]); "
                              "import step_observers as o; print(\" \".join(o.NAMES))' " + tune_home() +
                              "/src/trial 2>&1";
  const auto [exit_code, output] = tune::testing::run_command(command);
  ASSERT_EQ(exit_code, 0) << output;
  std::vector<std::string> names;
  for (const auto& o : registered_observers()) names.push_back(o.name);
  EXPECT_EQ(output, join(names, " ") + "\n") << "NAMES in src/trial/step_observers.py and the registry must agree";
}

namespace {

PairedPart part(const std::string& observer, std::vector<double> blocks, const std::string& compile_info = "") {
  PairedPart p;
  p.backend = "inductor";
  p.observer = observer;
  p.block_times = std::move(blocks);
  p.compile_info = compile_info;
  return p;
}

const char* kAccount = "torch.compile(mode=default, dynamic=False) of BertForMaskedLM, optimizer step compiled; torch "
                       "2.15.0, transformers 4.57.1; graphs %d, graph breaks %d, frames compiled 3, recompiles after "
                       "the first step %d; dynamo trace 1.00 s";

}  // namespace

TEST(ObserverOverhead, TheRatioIsObservedOverBareStepTimePerRound) {
  TrialResult r;
  r.status = TrialStatus::ok;
  r.paired = {part("", {0.10, 0.11, 0.10, 0.12}), part("profiler", {0.12, 0.132, 0.12, 0.144})};
  const auto found = observer_overheads(r);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].observer, "profiler");
  EXPECT_NEAR(found[0].step_time.ratio, 1.2, 1e-9);
  EXPECT_EQ(found[0].step_time.rounds, 4);
  EXPECT_EQ(observer_verdict(found[0]), "slower");  // the ratio's interval above 1: a longer step
  EXPECT_NE(describe_observer_cost(found[0]).find("+20% step time (95% CI +20% to +20%, 4 paired rounds)"),
            std::string::npos) << describe_observer_cost(found[0]);
}

TEST(ObserverOverhead, AnIntervalHoldingOneIsNoDifferenceWithinTheNoise) {
  TrialResult r;
  r.paired = {part("", {0.10, 0.10, 0.10}), part("loss-log", {0.09, 0.11, 0.10})};
  const auto found = observer_overheads(r);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(observer_verdict(found[0]), "no difference");
  EXPECT_EQ(describe_observer_cost(found[0]).rfind("no difference within the noise (", 0), 0u) << describe_observer_cost(found[0]);
}

TEST(ObserverOverhead, GraphBreaksTheToolCausesAreSaid) {
  TrialResult r;
  r.paired = {part("", {0.1, 0.1}, strf(kAccount, 2, 0, 0)), part("tensor-stats", {0.3, 0.3}, strf(kAccount, 9, 16, 1))};
  const auto found = observer_overheads(r);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].graphs_bare, "graphs 2, graph breaks 0, recompiles after the first step 0");
  EXPECT_EQ(found[0].graphs_observed, "graphs 9, graph breaks 16, recompiles after the first step 1");
  EXPECT_NE(describe_observer_cost(found[0]).find("compiled graph changed: graphs 2, graph breaks 0, recompiles after the "
                                             "first step 0 -> graphs 9, graph breaks 16"), std::string::npos);
  EXPECT_EQ(graph_counts("traced graph: 120 nodes"), "");  // a libtorch backend's account has none
  r.paired[1].observer_caveat = "gradients only";
  EXPECT_NE(describe_observer_cost(observer_overheads(r).at(0)).find("; gradients only; compiled graph changed"),
            std::string::npos);
}

TEST(ObserverOverhead, AToolThatFailedIsItsStatusAndABareFailureGivesNothing) {
  TrialResult r;
  PairedPart failed = part("anomaly", {0.2});
  failed.status = TrialStatus::crashed;
  failed.error_stage = "step";
  failed.error_message = "observer failed at step 4";
  r.paired = {part("", {0.1, 0.1, 0.1}), failed};
  const auto found = observer_overheads(r);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(describe_observer_cost(found[0]), "crashed at step: observer failed at step 4");
  r.paired.front().status = TrialStatus::oom;
  EXPECT_TRUE(observer_overheads(r).empty());
  r.paired = {part("", {0.1}), part("", {0.1})};  // tune regress's pairs have no observer part
  EXPECT_TRUE(observer_overheads(r).empty());
}
