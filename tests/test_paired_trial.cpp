// Paired trials (tune regress): blocks alternate A B, B A; each backend trains exactly the curve it would
// train alone (its own model copy and random stream); an injected slowdown of one backend shows in the
// block ratios; the calibration workload trains beside them without moving their curves; a paired spec
// without a partner is invalid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "regress/run.h"
#include "trial/backend_registry.h"
#include "trial/paired_trial.h"
#include "trial/trial_runner.h"

using namespace tune;

namespace {

TrialSpec paired_tiny_spec() {
  TrialSpec s;
  s.model = resolve_model("bert-tiny");
  s.seq_len = 32;
  s.batch_size = 8;
  s.learning_rate = 1e-3;
  s.seed = 5;
  s.threads = 1;
  s.data.corpus_path = "synthetic";
  s.measure.step_clock = "cpu";
  s.purpose = TrialPurpose::paired;
  s.step.backend = "eager";
  s.paired.backends = {"jit"};
  s.measure.warmup_steps = 2;
  s.paired.rounds = 4;
  s.paired.block_steps = 2;
  return s;
}

// The same steps as a lone throughput trial: warm-up, then rounds * block_steps timed steps.
TrialResult alone(const TrialSpec& paired, const std::string& backend) {
  TrialSpec s = paired;
  s.purpose = TrialPurpose::throughput;
  s.step.backend = backend;
  s.paired.backends.clear();
  s.measure.min_measure_steps = s.measure.max_measure_steps = paired.paired.rounds * paired.paired.block_steps;
  s.measure.measure_seconds = 1e9;
  s.measure.ci_halfwidth = 0;
  return run_trial_in_process(s);
}

double median_ratio(const PairedPart& native, const PairedPart& compiled) {
  return 1 / paired_speedup(native.block_times, compiled.block_times);
}

}  // namespace

TEST(PairedTrial, BlocksAlternateBetweenRounds) {
  EXPECT_EQ(paired_block_order(2, 0), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(paired_block_order(2, 1), (std::vector<size_t>{1, 0}));
  EXPECT_EQ(paired_block_order(3, 3), (std::vector<size_t>{2, 1, 0}));
  EXPECT_EQ(paired_block_order(3, 4), (std::vector<size_t>{0, 1, 2}));
}

TEST(PairedTrial, EachBackendTrainsTheCurveItWouldTrainAlone) {
  const TrialSpec s = paired_tiny_spec();
  const TrialResult r = run_trial_in_process(s);
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_message;
  ASSERT_EQ(r.paired.size(), 2u);
  const int steps = s.measure.warmup_steps + s.paired.rounds * s.paired.block_steps;
  for (const PairedPart& part : r.paired) {
    ASSERT_TRUE(part.ok()) << part.backend << ": " << part.error_message;
    EXPECT_EQ(part.block_times.size(), static_cast<size_t>(s.paired.rounds)) << part.backend;
    const TrialResult lone = alone(s, part.backend);
    ASSERT_EQ(lone.status, TrialStatus::ok) << lone.error_message;
    ASSERT_EQ(part.losses.size(), static_cast<size_t>(steps)) << part.backend;
    EXPECT_EQ(part.losses, lone.losses) << part.backend << " trains another curve beside its partner";
  }
  EXPECT_EQ(r.paired[0].backend, "eager");
  EXPECT_EQ(r.losses, r.paired[0].losses) << "the trial's own fields describe spec.step.backend";
  EXPECT_EQ(r.step_times.size(), static_cast<size_t>(s.paired.rounds * s.paired.block_steps));
  EXPECT_NE(r.steady_state_stop.find("paired"), std::string::npos) << r.steady_state_stop;
}

TEST(PairedTrial, InjectedSlowdownOfOneBackendShowsInTheBlockRatios) {
  TrialSpec s = paired_tiny_spec();
  s.paired.rounds = 16;  // one 4-step block's ratio varies ~6-9%: the median of 16 holds the check to a few %
  s.paired.block_steps = 4;
  const TrialResult clean = run_trial_in_process(s);
  s.test.slowed_backend = "jit";
  s.test.inject_slowdown = 0.5;
  const TrialResult slowed = run_trial_in_process(s);
  ASSERT_EQ(clean.status, TrialStatus::ok) << clean.error_message;
  ASSERT_EQ(slowed.status, TrialStatus::ok) << slowed.error_message;
  EXPECT_EQ(slowed.paired[0].inject_slowdown, 0);
  EXPECT_EQ(slowed.paired[1].inject_slowdown, 0.5);
  // CPU time burnt after each jit step: jit blocks take 1.5x what they took, eager blocks the same. Seen here:
  // 1.47-1.66, ~1.57 on average (each median of 16 noisy block ratios moves a few %, and the burn loop's
  // clock reads seem to cost the next step a little: 10% injected in tune regress read as 9.4% on average).
  // Under the full suite's parallel tests it read 1.81 (2026-12-05): the bounds hold the slowdown to "jit's blocks
  // alone, about 1.5x", not to a figure the machine's noise decides.
  const double seen = median_ratio(slowed.paired[0], slowed.paired[1]) / median_ratio(clean.paired[0], clean.paired[1]);
  std::printf("jit block time, 50%% injected: x%.3f\n", seen);
  EXPECT_GT(seen, 1.3);
  EXPECT_LT(seen, 2.0);
  EXPECT_EQ(slowed.paired[1].losses, clean.paired[1].losses) << "the slowdown burns time, not numerics";
}

TEST(PairedTrial, CalibrationWorkloadTrainsBesideTheNativeBackendWithoutMovingItsCurve) {
  TrialSpec s = paired_tiny_spec();
  s.paired.backends = {kCalibrationBackend};
  const TrialResult first = run_trial_in_process(s), again = run_trial_in_process(s);
  ASSERT_EQ(first.status, TrialStatus::ok) << first.error_message;
  ASSERT_EQ(first.paired.size(), 2u);
  const PairedPart& calibration = first.paired[1];
  ASSERT_TRUE(calibration.ok()) << calibration.error_message;
  EXPECT_EQ(calibration.backend, kCalibrationBackend);
  EXPECT_EQ(calibration.block_times.size(), static_cast<size_t>(s.paired.rounds));
  EXPECT_EQ(first.paired[0].losses, alone(s, "eager").losses) << "the calibration workload moved eager's curve";
  ASSERT_FALSE(calibration.losses.empty());
  EXPECT_LT(calibration.losses.back(), calibration.losses.front()) << "it trains: loss should fall";
  EXPECT_EQ(calibration.losses, again.paired[1].losses) << "seeded: the same workload every process";
}

TEST(PairedTrial, PairedSpecWithoutAPartnerIsInvalid) {
  TrialSpec s = paired_tiny_spec();
  s.paired.backends.clear();
  const TrialResult r = run_trial_in_process(s);
  EXPECT_EQ(r.status, TrialStatus::invalid);
  EXPECT_NE(r.error_message.find("0 paired backend(s)"), std::string::npos) << r.error_message;
}

// A tool that slows the step 50x (anomaly mode in libtorch) in an observer trial: the rounds stop once the next would
// pass 80% of the trial's timeout, after at least two, so the trial ends with a figure instead of a timeout.
TEST(PairedTrial, RoundsStopBeforeTheTimeoutWithTheRoundsThatRan) {
  TrialSpec s = paired_tiny_spec();
  s.paired.backends.clear();
  s.paired.observers = {"anomaly"};
  s.paired.rounds = 50;
  s.paired.block_steps = 5;
  s.seq_len = 128;
  s.measure.step_clock = "wall";
  s.timeout_seconds = 20;
  const TrialResult r = run_trial_in_process(s);
  ASSERT_TRUE(r.ok()) << r.error_message;
  ASSERT_EQ(r.paired.size(), 2u);
  const size_t rounds = r.paired[0].block_times.size();
  EXPECT_GE(rounds, 2u);
  EXPECT_LT(rounds, 50u);
  EXPECT_EQ(r.paired[1].block_times.size(), rounds);  // whole rounds only: every ratio stays paired
  EXPECT_NE(r.steady_state_stop.find("(of 50: the next would have passed 80% of the trial's timeout)"),
            std::string::npos) << r.steady_state_stop;
}
