// The time-to-loss objective and stage on the bert-tiny replay landscape: steps to a target, the
// scaling-rule rates, the reference target, the time cap, and every strategy against the exhaustive grid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <numeric>

#include "engine/tuner_replay.h"
#include "test_helpers.h"
#include "tuners/batch_scaling.h"
#include "tuners/composite/time_to_loss_ladder.h"
#include "tuner_checks.h"
#include "util/table_format.h"

using namespace tune;
using namespace tune::testing;

namespace {

// The mean of the `window` losses ending at step k.
double window_mean(const std::vector<double>& losses, int k, int window) {
  return std::accumulate(losses.begin() + (k - window), losses.begin() + k, 0.0) / window;
}

TEST(TimeToLoss, StepsToReachIsTheFirstFullWindowThatScoresAtTheTarget) {
  const std::vector<double> losses{10, 9.5, 9.7, 8, 8.4, 7, 6.5, 6.9, 6, 5.5};
  for (int window : {1, 2, 3})
    for (double target : {9.6, 8.2, 7.0, 6.2}) {
      int expected = 0;
      for (int k = window; k <= static_cast<int>(losses.size()) && expected == 0; ++k)
        if (window_mean(losses, k, window) <= target) expected = k;
      ASSERT_GT(expected, 0) << target;
      EXPECT_EQ(steps_to_reach(losses, target, window), expected) << "target " << target << ", window " << window;
    }
  EXPECT_FALSE(steps_to_reach(losses, 1.0, 2));
  EXPECT_FALSE(steps_to_reach({}, 1.0, 2));
  EXPECT_FALSE(steps_to_reach({1.0}, 5.0, 2)) << "one loss is no full window of two";
}

// The score window of a full-length trial is trial_runner's tail: the curve reaches its own score.
TEST(TimeToLoss, AFullLengthCurveReachesItsOwnScore) {
  const std::vector<double> losses{10, 9, 8.5, 8.1, 7.7, 7.9, 7.2, 7.3, 7.1, 7.0, 6.8, 6.9};  // batch 4, 48 samples
  const int window = score_window(48, 4);
  EXPECT_EQ(window, 3);
  EXPECT_EQ(steps_to_reach(losses, window_mean(losses, 12, window), window), 12);
  EXPECT_EQ(score_window(48, 1), 12) << "a quarter of the samples at every batch";
}

TEST(TimeToLoss, ANonFiniteLossEndsTheCurve) {
  EXPECT_FALSE(steps_to_reach({10, 9, std::nan(""), 1, 1, 1}, 5.0, 2));
  EXPECT_EQ(seconds_to_reach({10, 4, 3}, 5.0, 2, 0.25), 3 * 0.25);  // 3: steps 1-2 score (10+4)/2 = 7
}

TEST(TimeToLoss, StepsForSamplesRoundsUpAndKeepsTwoSteps) {
  EXPECT_EQ(steps_for_samples(1024, 16), 64);
  EXPECT_EQ(steps_for_samples(1000, 3), 334);
  EXPECT_EQ(steps_for_samples(8, 64), 2);
  EXPECT_NE(error_of([] { steps_for_samples(0, 4); }).find("samples 0"), std::string::npos);
}

TEST(TimeToLoss, ScalingRuleRatesAreTheSameRateAndTheSqrtAndLinearRules) {
  const auto rates = scaling_rule_rates(1e-3, 64, 16);  // k = 1/4
  ASSERT_EQ(rates.size(), 3u);
  EXPECT_DOUBLE_EQ(rates[0], 1e-3 / 4);
  EXPECT_DOUBLE_EQ(rates[1], 1e-3 / 2);
  EXPECT_DOUBLE_EQ(rates[2], 1e-3);
  EXPECT_EQ(scaling_rule_rates(1e-3, 8, 8).size(), 1u);
  EXPECT_NE(error_of([] { scaling_rule_rates(-1, 8, 4); }).find("-1"), std::string::npos);
}

// The stage on the landscape: 64 samples per trial (batch 1: 64 steps, within the 81 recorded).
TimeToLossPlan landscape_plan(const ReplayLandscape& landscape, const std::string& lr_tuner) {
  TimeToLossPlan plan;
  plan.target = {0, 64, 4, 1e-4};
  for (int batch : landscape.recorded_batch_sizes()) {
    const RecordedBatch record = landscape.batch_at(batch);
    if (record.status == TrialStatus::ok) plan.step_seconds[batch] = batch / record.samples_per_second;
  }
  plan.throughput_batch = fastest_fitting_batch(landscape);
  plan.lr_tuner = lr_tuner;
  plan.lr_space = lr_stage_space();
  plan.lr_space.reference_batch_size = 4;
  plan.lr_space.reference_learning_rate = 1e-4;
  return plan;
}

struct ReplayedStage {
  TimeToLossOutcome outcome;
  double cost_seconds = 0;
};

// The ladder driven on the landscape, as the engine drives it on trials; at most `max_trials` trials run.
ReplayedStage replay_stage(const TimeToLossPlan& plan, const ReplayLandscape& landscape, int max_trials = 1000) {
  TimeToLossLadder ladder(plan);
  LandscapeSource source(landscape);
  TrialCountBudget budget(max_trials);
  const DriveOutcome run = drive(ladder, source, {&budget, false});
  return {ladder.outcome(run.cause == StopCause::budget), run.run_seconds()};
}

// A source whose results a test makes up.
class MadeUpTrials : public TrialSource {
 public:
  explicit MadeUpTrials(std::function<TrialResult(const Candidate&)> make) : make_(std::move(make)) {}
  TrialResult run(const Candidate& candidate) override { return make_(candidate); }

 private:
  std::function<TrialResult(const Candidate&)> make_;
};

// Ground truth: every fitting batch x every listed rate at full length, the fewest seconds to the target.
double exhaustive_best_seconds(const TimeToLossPlan& plan, const ReplayLandscape& landscape, double target) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [batch, step] : plan.step_seconds)
    for (double lr : plan.lr_space.learning_rates) {
      const TrialResult r = landscape.replay({batch, lr, steps_for_samples(plan.target.samples, batch)});
      const int window = score_window(plan.target.samples, batch);
      if (const auto s = seconds_to_reach(r.losses, target, window, step); s && r.ok()) best = std::min(best, *s);
    }
  return best;
}

TEST(TimeToLossStage, TheReferenceTrialRunsFirstAndSetsTheTarget) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const ReplayedStage stage = replay_stage(landscape_plan(landscape, "lr_sweep"), landscape);
  ASSERT_FALSE(stage.outcome.trials.empty());
  const auto& reference = stage.outcome.trials.front();
  EXPECT_EQ(reference.candidate.batch_size, 4);
  EXPECT_EQ(reference.candidate.train_steps, 16);
  EXPECT_DOUBLE_EQ(stage.outcome.target_loss, landscape.replay(reference.candidate).score_loss);
  EXPECT_TRUE(reference.reaches());
  EXPECT_NE(stage.outcome.target_source.find("batch 4"), std::string::npos);
}

TEST(TimeToLossStage, NoBatchAndRateRunsTwiceWhenALongerRunAnswersIt) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  TimeToLossPlan plan = landscape_plan(landscape, "grid");
  plan.lr_space.learning_rates = {1e-4, 1e-3};  // the reference rate is on the grid
  const ReplayedStage stage = replay_stage(plan, landscape);
  for (size_t i = 0; i < stage.outcome.trials.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const Candidate &a = stage.outcome.trials[i].candidate, &b = stage.outcome.trials[j].candidate;
      EXPECT_FALSE(a.batch_size == b.batch_size && a.learning_rate == b.learning_rate)
          << "batch " << a.batch_size << ", lr " << a.learning_rate << " ran twice";
    }
}

TEST(TimeToLossStage, AGivenTargetNeedsNoReferenceTrial) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  TimeToLossPlan plan = landscape_plan(landscape, "lr_sweep");
  plan.target.loss = 8.0;
  const ReplayedStage stage = replay_stage(plan, landscape);
  EXPECT_DOUBLE_EQ(stage.outcome.target_loss, 8.0);
  EXPECT_EQ(stage.outcome.target_source, "--target-loss");
  ASSERT_FALSE(stage.outcome.trials.empty());
  EXPECT_EQ(stage.outcome.trials.front().candidate.batch_size, plan.throughput_batch);
}

TEST(TimeToLossStage, GridFindsTheExhaustiveBestDespiteTheTimeCap) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const TimeToLossPlan plan = landscape_plan(landscape, "grid");
  const ReplayedStage stage = replay_stage(plan, landscape);
  ASSERT_TRUE(stage.outcome.best);
  EXPECT_NEAR(stage.outcome.best->seconds_to_target,
              exhaustive_best_seconds(plan, landscape, stage.outcome.target_loss), 1e-12);
}

TEST(TimeToLossStage, TheTimeCapStopsTrialsThatCanNoLongerWin) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  TimeToLossPlan plan = landscape_plan(landscape, "grid");
  const ReplayedStage capped = replay_stage(plan, landscape);
  plan.time_cap = false;
  const ReplayedStage full = replay_stage(plan, landscape);
  EXPECT_LT(capped.cost_seconds, full.cost_seconds);
  ASSERT_TRUE(capped.outcome.best && full.outcome.best);
  EXPECT_DOUBLE_EQ(capped.outcome.best->seconds_to_target, full.outcome.best->seconds_to_target);
  double best = std::numeric_limits<double>::infinity();
  for (const auto& t : capped.outcome.trials) {
    const double step = plan.step_seconds.at(t.candidate.batch_size);
    const int window = score_window(plan.target.samples, t.candidate.batch_size);
    if (std::isfinite(best))
      EXPECT_LE(t.candidate.train_steps * step, std::max(best * (1 + plan.time_cap_margin) + 1.01 * step, window * step));
    if (t.reaches()) best = std::min(best, t.seconds_to_target);
  }
}

TEST(TimeToLossStage, TheLadderStopsAtTheFirstHalvingThatDoesNotImprove) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const ReplayedStage stage = replay_stage(landscape_plan(landscape, "lr_sweep"), landscape);
  ASSERT_TRUE(stage.outcome.best);
  const int last_batch = stage.outcome.trials.back().candidate.batch_size;
  EXPECT_TRUE(stage.outcome.stop.find("did not improve") != std::string::npos ||
              stage.outcome.stop.find("large-batch model") != std::string::npos ||
              stage.outcome.stop.find("smallest") != std::string::npos ||
              stage.outcome.stop.find("largest") != std::string::npos)
      << stage.outcome.stop;
  if (stage.outcome.stop.find("did not improve") != std::string::npos)
    EXPECT_NE(stage.outcome.best->candidate.batch_size, last_batch);
}

TEST(TimeToLoss, TheLargeBatchModelPassesThroughItsPointsAndBendsBetweenItsLimits) {
  // S = 2 (1 + 32 / b): 6 steps at 16, 10 at 8, and 18 predicted at 4.
  EXPECT_NEAR(large_batch_model_steps({16, 6}, {8, 10}, 16), 6, 1e-12);
  EXPECT_NEAR(large_batch_model_steps({16, 6}, {8, 10}, 8), 10, 1e-12);
  EXPECT_NEAR(large_batch_model_steps({16, 6}, {8, 10}, 4), 18, 1e-12);
  // Steps that did not grow: no gain from a larger batch (S = S_min); that doubled: constant samples.
  EXPECT_NEAR(large_batch_model_steps({16, 6}, {8, 5}, 4), 6, 1e-12);
  EXPECT_NEAR(large_batch_model_steps({16, 6}, {8, 12}, 4), 24, 1e-12);
  EXPECT_NEAR(large_batch_model_steps({16, 6}, {8, 14}, 4), 28, 1e-12);
}

// On the landscape the ladder from batch 8 improves at 4 and the model then rules out batch 2; running
// batch 2's rung anyway shows it could not have won.
TEST(TimeToLossStage, TheLargeBatchModelSkipsOnlyARungThatCannotWin) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const TimeToLossPlan plan = landscape_plan(landscape, "lr_sweep");
  const ReplayedStage stage = replay_stage(plan, landscape);
  ASSERT_NE(stage.outcome.stop.find("batch 2 not run: the large-batch model"), std::string::npos) << stage.outcome.stop;
  TimeToLossPlan only_two = plan;
  only_two.step_seconds = {{2, plan.step_seconds.at(2)}};
  EXPECT_GT(exhaustive_best_seconds(only_two, landscape, stage.outcome.target_loss), stage.outcome.best->seconds_to_target);
  EXPECT_EQ(stage.outcome.best->seconds_to_target, exhaustive_best_seconds(plan, landscape, stage.outcome.target_loss));
}

// The engine gives asha its min_steps; the ladder's later rungs are lr_sweep, which has no such option.
TEST(TimeToLossStage, LaterLadderRungsDoNotInheritTheFirstStrategysOptions) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  TimeToLossPlan plan = landscape_plan(landscape, "asha");
  plan.lr_space.options["min_steps"] = 2;
  ReplayedStage stage;
  EXPECT_NO_THROW(stage = replay_stage(plan, landscape));
  ASSERT_TRUE(stage.outcome.best);
  EXPECT_LT(stage.outcome.best->candidate.batch_size, plan.throughput_batch) << "the ladder went down";
}

// A throughput stage that stopped early on noise: the ladder starts at batch 1, halving is impossible,
// so it walks up to the batch the exhaustive grid finds best.
TEST(TimeToLossStage, TheLadderWalksUpWhenHalvingCannotImprove) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  TimeToLossPlan plan = landscape_plan(landscape, "lr_sweep");
  plan.throughput_batch = 1;
  const ReplayedStage stage = replay_stage(plan, landscape);
  ASSERT_TRUE(stage.outcome.best);
  EXPECT_NE(stage.outcome.stop.find("up: "), std::string::npos) << stage.outcome.stop;
  const double truth = exhaustive_best_seconds(plan, landscape, stage.outcome.target_loss);
  EXPECT_LT(regret(stage.outcome.best->seconds_to_target, truth, Better::lower), 0.10);
  EXPECT_GT(stage.outcome.best->candidate.batch_size, 1);
}

// lr_sweep's first rung tries every listed rate (the rates are no unimodal landscape to walk), and every trial
// of a rung is capped alike (the best time before the rung), so the rung compares losses at equal lengths.
TEST(TimeToLossStage, TheFirstRungTriesEveryListedRateAndEachRungRunsOneLength) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const TimeToLossPlan plan = landscape_plan(landscape, "lr_sweep");
  const ReplayedStage stage = replay_stage(plan, landscape);
  const auto& rates = plan.lr_space.learning_rates;
  ASSERT_GT(stage.outcome.trials.size(), rates.size());
  for (size_t i = 0; i < rates.size(); ++i) {
    EXPECT_EQ(stage.outcome.trials[1 + i].candidate.batch_size, plan.throughput_batch);
    EXPECT_DOUBLE_EQ(stage.outcome.trials[1 + i].candidate.learning_rate, rates[i]);
  }
  std::map<int, int> steps_of_rung;
  for (size_t i = 1; i < stage.outcome.trials.size(); ++i) {
    const Candidate& c = stage.outcome.trials[i].candidate;
    const auto [it, first] = steps_of_rung.emplace(c.batch_size, c.train_steps);
    EXPECT_TRUE(first || it->second == c.train_steps) << "batch " << c.batch_size << ": " << c.train_steps
                                                      << " steps after " << it->second;
  }
  EXPECT_LT(stage.outcome.trials.size(), replay_stage(landscape_plan(landscape, "grid"), landscape).outcome.trials.size());
}

// One unlucky throughput trial (the best batch's step time measured 8% slow, within the time cap's margin)
// is outvoted by the trials that ran the batch since: the best is chosen on the median over every process.
TEST(TimeToLossStage, TheBestIsChosenOnTheMedianOverEveryProcessThatRanTheBatch) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const TimeToLossPlan fair = landscape_plan(landscape, "lr_sweep");
  const ReplayedStage truth = replay_stage(fair, landscape);
  ASSERT_TRUE(truth.outcome.best);
  const int best_batch = truth.outcome.best->candidate.batch_size;
  EXPECT_DOUBLE_EQ(truth.outcome.step_seconds.at(best_batch), fair.step_seconds.at(best_batch));
  TimeToLossPlan unlucky = fair;
  unlucky.step_seconds[best_batch] *= 1.08;
  const ReplayedStage stage = replay_stage(unlucky, landscape);
  ASSERT_TRUE(stage.outcome.best);
  EXPECT_EQ(stage.outcome.best->candidate.batch_size, best_batch) << stage.outcome.stop;
  EXPECT_DOUBLE_EQ(stage.outcome.step_seconds.at(best_batch), fair.step_seconds.at(best_batch));
  EXPECT_DOUBLE_EQ(stage.outcome.best->seconds_to_target, truth.outcome.best->seconds_to_target);
}

// Batch 4 reaches the target 15% sooner than batch 8 (112 steps of 1 ms against 66 of 2 ms), but the throughput
// stage misread its step as 1.4 ms: at that time it looks slower. Its rung still runs long enough to get there
// (the cap's margin over the best time before it), and its three trials' own 1 ms step times outvote the misread
// one, so the walk takes batch 4 as an improvement and the stage chooses it. With a 10% margin it never reaches.
TEST(TimeToLossStage, AMisreadStepTimeIsOutvotedByTheRungsOwnTrials) {
  TimeToLossPlan plan;
  plan.target = {5.0, 1024, 8, 1e-3};  // a given target: no reference trial
  plan.step_seconds = {{4, 0.0014}, {8, 0.002}};
  plan.throughput_batch = 8;
  plan.max_batch_size = 8;
  plan.lr_space = lr_stage_space();
  plan.lr_space.learning_rates = {1e-3, 1e-2};
  const std::map<int, double> true_step{{4, 0.001}, {8, 0.002}};
  MadeUpTrials source([&](const Candidate& c) {
    TrialResult r;
    r.status = TrialStatus::ok;
    const double slope = c.batch_size == 8 ? 0.1 : 0.0625;  // loss per step: batch 8 learns more per step
    for (int step = 1; step <= c.train_steps; ++step) r.losses.push_back(10.0 - slope * step);
    r.score_loss = tail_mean_loss(r.losses);
    r.step_time_median = true_step.at(c.batch_size);
    return r;
  });
  for (const double margin : {0.5, 0.1}) {
    plan.time_cap_margin = margin;
    TimeToLossLadder ladder(plan);
    drive(ladder, source);
    const TimeToLossOutcome outcome = ladder.outcome(false);
    ASSERT_TRUE(outcome.best);
    EXPECT_EQ(outcome.best->candidate.batch_size, margin == 0.5 ? 4 : 8) << "margin " << margin << ": " << outcome.stop;
    if (margin == 0.5) {
      EXPECT_NEAR(outcome.step_seconds.at(4), 0.001, 1e-12);
      EXPECT_EQ(outcome.best->steps_to_target, 112);
      EXPECT_NE(outcome.stop.find("batch 4 is the smallest in range"), std::string::npos) << outcome.stop;
    }
  }
}

// Only the reference config (batch 4) ever reaches the target: the rungs above it go on halving (they never
// reach), the rung at batch 4 is judged with the reference trial, and the walk goes on past one rung no faster
// than it (batch 2) to end after the second (batch 1); with walk_patience 1, batch 2 ends it.
TEST(TimeToLossStage, ARungIsJudgedWithEveryEarlierTrialAtItsBatchAndAWalkEndsAfterPatienceMisses) {
  TimeToLossPlan plan;
  plan.target = {0, 64, 4, 3e-4};  // a rate no rung tries: the rungs scale from 1e-3, the list's
  plan.step_seconds = {{1, 0.001}, {2, 0.0015}, {4, 0.002}, {8, 0.003}};
  plan.throughput_batch = 8;
  plan.max_batch_size = 8;
  plan.lr_space = lr_stage_space();
  plan.lr_space.learning_rates = {1e-4, 1e-3, 1e-2};
  for (const int patience : {2, 1}) {
    plan.walk_patience = patience;
    std::vector<Candidate> ran;
    MadeUpTrials source([&](const Candidate& c) {
      ran.push_back(c);
      TrialResult r;
      r.status = TrialStatus::ok;
      const bool reference = c.batch_size == 4 && c.learning_rate == 3e-4;
      for (int step = 0; step < c.train_steps; ++step) r.losses.push_back(reference ? 10.0 - step * 0.1 : 10.0);
      r.score_loss = tail_mean_loss(r.losses);
      r.step_time_median = plan.step_seconds.at(c.batch_size);
      return r;
    });
    TimeToLossLadder ladder(plan);
    drive(ladder, source);
    const TimeToLossOutcome outcome = ladder.outcome(false);
    ASSERT_TRUE(outcome.best);
    EXPECT_EQ(outcome.best->candidate.batch_size, 4);
    const bool ran_batch_1 = std::any_of(ran.begin(), ran.end(), [](const Candidate& c) { return c.batch_size == 1; });
    EXPECT_EQ(ran_batch_1, patience == 2);
    const std::string missed = patience == 2 ? "batch 2, 1 did not improve on batch 4" : "batch 2 did not improve on batch 4";
    EXPECT_NE(outcome.stop.find("batch ladder down: " + missed), std::string::npos) << outcome.stop;
    EXPECT_NE(outcome.stop.find("up: batch 8 is the largest in range"), std::string::npos) << outcome.stop;
  }
}

TEST(TimeToLossStage, ABudgetStopEndsTheStageWithTheBestSoFar) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  const ReplayedStage stage = replay_stage(landscape_plan(landscape, "grid"), landscape, 5);
  EXPECT_EQ(stage.outcome.trials.size(), 5u);
  EXPECT_EQ(stage.outcome.stop.find("joint batch x learning-rate space: budget"), 0u) << stage.outcome.stop;
  EXPECT_TRUE(stage.outcome.best);
}

// Every strategy the stage can run: never worse than the reference config it started from, and but for
// random (12 draws) within 10% of the exhaustive grid's time; the regret and cost table is printed.
TEST(TimeToLossStage, EveryStrategyGetsNearTheExhaustiveBest) {
  const ReplayLandscape landscape = bert_tiny_landscape();
  TimeToLossPlan grid_plan = landscape_plan(landscape, "grid");
  grid_plan.time_cap = false;
  const ReplayedStage grid = replay_stage(grid_plan, landscape);
  const double truth = exhaustive_best_seconds(grid_plan, landscape, grid.outcome.target_loss);
  std::vector<std::vector<std::string>> rows;
  for (const auto& name : tuners_for(StageObjective::loss)) {
    const ReplayedStage stage = replay_stage(landscape_plan(landscape, name), landscape);
    ASSERT_TRUE(stage.outcome.best) << name;
    const double shortfall = regret(stage.outcome.best->seconds_to_target, truth, Better::lower);
    EXPECT_LE(stage.outcome.best->seconds_to_target, stage.outcome.trials.front().seconds_to_target) << name;
    if (name != "random") EXPECT_LT(shortfall, 0.10) << name;
    rows.push_back({name, std::to_string(stage.outcome.trials.size()), strf("%.3f", stage.cost_seconds),
                    strf("%.2f", stage.cost_seconds / grid.cost_seconds),
                    strf("%d", stage.outcome.best->candidate.batch_size),
                    strf("%.2e", stage.outcome.best->candidate.learning_rate),
                    strf("%.4f", stage.outcome.best->seconds_to_target), strf("%+.2f%%", 100 * shortfall)});
  }
  write_markdown_table(std::cout, {"tuner", "trials", "cost s", "cost/grid", "batch", "lr", "s to target", "regret"},
                       rows);
}

}  // namespace
