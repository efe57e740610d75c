// The learning-rate trials' horizon tied to the user's planned job (--job-steps/--job-hours): how many steps a
// rate is ranked after, and what a horizon shorter than the job calls for means for the answer.
#pragma once
#include <string>

namespace tune {

// The job a search answers for; 0 where the user did not say.
struct JobLength {
  double steps = 0;
  double hours = 0;
};

// reports/lr-horizon.md: the ranking of rates after H steps agrees with their ranking after 10 H steps (median
// loss regret +0.65% at H = 12, within the seed-to-seed spread), so a job of J steps is answered at H = J / 10.
// On that report's runs, choosing at J / 10 was never worse than at 12 steps (jobs of 250 and 500 steps: median
// regret +1.24% and +3.76% either way; bert-tiny's 500-step job +0.00% vs +1.13%): the gap that remains at long
// jobs is the best rate falling with length, which no short horizon sees.
constexpr double kHorizonReach = 10;

// The job's length in steps at `step_seconds` per step (--job-hours converted; --job-steps as given; 0: none).
double job_steps_at(const JobLength& job, double step_seconds);

// The horizon the learning-rate trials want: lr_train_steps without a job (it predicts a run kHorizonReach
// times longer); for a job, a kHorizonReach-th of it, but never fewer than lr_train_steps unless the job itself
// is shorter (then the job's own length).
int wanted_horizon(double job_steps, int lr_train_steps);

// The stop-reason words when the budget affords `afforded` of the `wanted` steps for `trials` trials ("" when
// it affords all), naming the job and what a shorter horizon means for the chosen rate.
std::string describe_short_horizon(int afforded, int wanted, double job_steps, int trials);

// The words for a horizon chosen for a job ("" without one): "horizon 100 steps for a 1000-step job; ".
std::string describe_job_horizon(int horizon, double job_steps);

}  // namespace tune
