// The CPU-time step clock (tune regress times steps with it) counts a step's own work but not time the
// core was away, and the test-only slowed step adds the share of work it promises.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <thread>

#include "compile/slowed_step.h"
#include "test_helpers.h"
#include "trial/step_clock.h"

namespace tune {
namespace {

// Busy work of a fixed CPU time, measured with std::clock (another API than the clock under test), so a
// loaded machine stretches its wall time but not its CPU time.
void spin_cpu(double seconds) {
  const std::clock_t until = std::clock() + static_cast<std::clock_t>(seconds * CLOCKS_PER_SEC);
  while (std::clock() < until) {
  }
}

// A step that is pure CPU work of a fixed length (no tensors worth timing).
class BusyStep : public TrainStep {
 public:
  std::string backend() const override { return "busy"; }
  CompileReport prepare(const Batch&) override { return {}; }
  torch::Tensor step(const Batch&) override {
    spin_cpu(0.020);
    return torch::zeros({});
  }
};

TEST(StepClock, CpuTimeCountsWorkNotSleep) {
  auto clock = make_step_clock("cpu", "cpu");
  clock->mark();
  spin_cpu(0.030);
  clock->mark();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  clock->mark();
  const auto times = clock->collect();
  ASSERT_EQ(times.size(), 2u);
  EXPECT_NEAR(times[0], 0.030, 0.005);
  EXPECT_LT(times[1], 0.010);  // a sleeping process uses (almost) no CPU
}

TEST(StepClock, UnknownKindIsAClearError) {
  EXPECT_NE(testing::error_of([] { make_step_clock("cpu", "sundial"); }).find("'sundial'"), std::string::npos);
}

TEST(SlowedStep, AddsTheInjectedShareOfCpuWork) {
  auto slowed = slow_down(std::make_unique<BusyStep>(), 0.5);
  auto clock = make_step_clock("cpu", "cpu");
  Batch batch;
  clock->mark();
  for (int i = 0; i < 5; ++i) {
    slowed->step(batch);
    clock->mark();
  }
  const auto times = clock->collect();
  auto plain = std::make_unique<BusyStep>();
  clock->mark();
  for (int i = 0; i < 5; ++i) {
    plain->step(batch);
    clock->mark();
  }
  const auto plain_times = clock->collect();
  double slowed_total = 0, plain_total = 0;
  for (int i = 1; i < 5; ++i) {  // step 0 may include first-call overheads
    slowed_total += times[i];
    plain_total += plain_times[i];
  }
  EXPECT_NEAR(slowed_total / plain_total, 1.5, 0.1);
  EXPECT_NE(testing::error_of([] { slow_down(std::make_unique<BusyStep>(), -1); }).find("-1"), std::string::npos);
}

}  // namespace
}  // namespace tune
