// The Python trial worker's torch-free side: backend labels and their spec knobs, trial keys that stay stable
// for specs stored before the knobs existed, and the worker's step statistics equal to the C++ ones.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <random>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "test_helpers.h"
#include "trial/backend_label.h"
#include "trial/python_trial.h"
#include "trial/step_statistics.h"
#include "util/paths.h"

using namespace tune;

namespace {

// Standard output of a shell command; fails the test when it exits non-zero.
std::string output_of(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << out;
  return out;
}

// Samples of several sizes and shapes: small n (no CI), the n where the order index steps, skewed times, ties.
std::vector<std::vector<double>> sample_sets() {
  std::mt19937 gen(7);
  std::lognormal_distribution<double> skewed(-3.0, 0.3);
  std::vector<std::vector<double>> sets{{}, {0.5}, {3, 1, 2}, {1, 1, 1, 1, 1, 1}};
  for (int n : {5, 6, 7, 9, 10, 17, 20, 31, 64, 200}) {
    std::vector<double> xs;
    for (int i = 0; i < n; ++i) xs.push_back(skewed(gen));
    sets.push_back(xs);
  }
  return sets;
}

}  // namespace

TEST(BackendLabel, InductorSuffixesSetTheCompileKnobs) {
  StepSettings s;
  apply_backend_label(s, "inductor:max-autotune-no-cudagraphs:dynamic");
  EXPECT_EQ(s.backend, "inductor");
  EXPECT_EQ(s.compile_mode, "max-autotune-no-cudagraphs");
  EXPECT_TRUE(s.dynamic_shapes);
  apply_backend_label(s, "inductor:dynamic");
  EXPECT_EQ(s.compile_mode, "default");
  EXPECT_TRUE(s.dynamic_shapes);
  apply_backend_label(s, "hf-eager");
  EXPECT_EQ(s.backend, "hf-eager");
  EXPECT_FALSE(s.dynamic_shapes);
  EXPECT_TRUE(runs_in_python("inductor") && runs_in_python("hf-eager") && !runs_in_python("jit"));
  const std::string error = tune::testing::error_of([] { check_backend_label("inductor:fastest"); });
  EXPECT_NE(error.find("'inductor:fastest'"), std::string::npos) << error;
  EXPECT_NE(error.find("inductor:reduce-overhead"), std::string::npos) << error;
}

TEST(BackendLabel, DefaultCompileKnobsKeepOldTrialKeys) {
  TrialSpec s;
  s.model = resolve_model("bert-tiny");
  nlohmann::json stored = s;  // a spec as stored before compile_mode and dynamic_shapes existed
  stored.erase("compile_mode");
  stored.erase("dynamic_shapes");
  EXPECT_EQ(stored.get<TrialSpec>().config_key(), s.config_key());
  TrialSpec dynamic = s;
  dynamic.step.dynamic_shapes = true;
  TrialSpec tuned = s;
  tuned.step.compile_mode = "max-autotune-no-cudagraphs";
  EXPECT_NE(dynamic.config_key(), s.config_key());
  EXPECT_NE(tuned.config_key(), s.config_key());
  EXPECT_NE(tuned.config_key(), dynamic.config_key());
}

// The worker reimplements the order-statistic CI for its stopping rule: it must give the C++ bounds exactly.
TEST(PythonWorker, StepStatisticsEqualTheCppOnes) {
  const auto sets = sample_sets();
  const std::string script = "import json, sys; sys.path.insert(0, sys.argv[1]); import inductor_trial as w; "
                             "print(json.dumps([w.step_statistics(xs) for xs in json.loads(sys.stdin.read())]))";
  const std::string input = (tune::testing::temp_dir("pystats") / "samples.json").string();
  tune::testing::write_file(input, nlohmann::json(sets).dump());
  const std::string out = output_of(python_executable() + " -c '" + script + "' " + tune_home() + "/src/compile < " + input);
  const auto python = nlohmann::json::parse(out);
  ASSERT_EQ(python.size(), sets.size());
  for (size_t i = 0; i < sets.size(); ++i) {
    const StepStatistics cpp = step_statistics(sets[i]);
    EXPECT_EQ(python[i]["samples"].get<int>(), cpp.samples);
    EXPECT_EQ(python[i]["has_ci"].get<bool>(), cpp.has_ci) << "n=" << sets[i].size();
    EXPECT_DOUBLE_EQ(python[i]["median"].get<double>(), cpp.median) << "n=" << sets[i].size();
    EXPECT_DOUBLE_EQ(python[i]["ci_low"].get<double>(), cpp.ci_low) << "n=" << sets[i].size();
    EXPECT_DOUBLE_EQ(python[i]["ci_high"].get<double>(), cpp.ci_high) << "n=" << sets[i].size();
    EXPECT_NEAR(python[i]["cv"].get<double>(), cpp.cv, 1e-12) << "n=" << sets[i].size();
  }
}
