// The backend contract, shared by the binaries that run it: every registered backend's tiny trial (a bert-tiny
// throughput trial at batch 4, isolated as the search runs it) ends ok with a finite throughput and finite losses,
// and its log names the backend, on each device of this machine the backend runs on. A device it is not run on is
// said in the test's output, with why (the registry's devices, or no such device here). The in-process backends
// run in tune_torch_tests (test_backend_contract.cpp), the Python-worker ones with the Inductor tests.
#pragma once
#include <gtest/gtest.h>

#include <torch/cuda.h>

#include <cctype>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "test_helpers.h"
#include "trial/backend_registry.h"
#include "trial/trial_process.h"
#include "util/join.h"

namespace tune::testing {

// A gtest-safe case name: inductor, cuda_graph, hf_eager.
inline std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// A short throughput trial of a tiny model (seq 32, batch 4, 3 to 8 timed steps): the Inductor tests' and the
// contract's. `backend` is a registered backend's name.
inline TrialSpec tiny_spec(const std::string& model, const std::string& backend) {
  TrialSpec s;
  s.model = resolve_model(model);
  s.step.backend = backend;
  s.seq_len = 32;
  s.batch_size = 4;
  s.learning_rate = 1e-3;
  s.seed = 3;
  s.threads = 2;
  s.measure.warmup_steps = 2;
  s.measure.min_measure_steps = 3;
  s.measure.max_measure_steps = 8;
  s.measure.measure_seconds = 5;
  s.timeout_seconds = 1200;
  return s;
}

// Why `backend` is not run on `device` here, or "" when it is.
inline std::string reason_not_run(const BackendInfo& backend, const std::string& device) {
  if (!backend.runs_on(device)) return "the registry says it runs on " + join(backend.devices) + " only";
  if (device == "cuda" && !torch::cuda::is_available()) return "no CUDA device on this machine";
  return "";
}

inline void expect_tiny_trial_ok(const BackendInfo& backend, const std::string& device) {
  const auto dir = temp_dir("contract-" + backend.name + "-" + device);
  TrialSpec spec = tiny_spec("bert-tiny", backend.name);
  spec.step.device = device;
  const TrialResult r = run_trial_isolated(spec, TUNE_EXECUTABLE, dir.string());
  const std::string log = read_file(dir / "log.txt");
  const std::string where = backend.name + " on " + device;
  ASSERT_EQ(r.status, TrialStatus::ok) << where << ": " << r.error_stage << ": " << r.error_message << "\n" << log;
  EXPECT_TRUE(std::isfinite(r.samples_per_second) && r.samples_per_second > 0) << where << ": " << r.samples_per_second;
  ASSERT_FALSE(r.losses.empty()) << where;
  for (double loss : r.losses) EXPECT_TRUE(std::isfinite(loss)) << where << ": loss " << loss;
  EXPECT_NE(log.find("compiled training step (backend=" + backend.name + ")"), std::string::npos)
      << where << ": the trial's log does not name the backend:\n" << log;
}

// The contract on every device of this machine the backend runs on; the output says which devices it skipped.
inline void expect_backend_contract(const std::string& name) {
  const BackendInfo* backend = find_backend(name);
  ASSERT_NE(backend, nullptr) << name;
  std::vector<std::string> ran, skipped;
  for (const std::string device : {"cpu", "cuda"}) {
    const std::string reason = reason_not_run(*backend, device);
    if (!reason.empty()) {
      skipped.push_back("on " + device + " (" + reason + ")");
      continue;
    }
    expect_tiny_trial_ok(*backend, device);
    ran.push_back(device);
  }
  std::cout << "[ contract ] " << name << ": ran on " << (ran.empty() ? "no device" : join(ran))
            << (skipped.empty() ? "" : "; not run " + join(skipped, ", ")) << std::endl;
  ::testing::Test::RecordProperty("devices_run", ran.empty() ? "none" : join(ran));
  ::testing::Test::RecordProperty("devices_not_run", skipped.empty() ? "none" : join(skipped, ", "));
}

}  // namespace tune::testing
