// The learning-rate trials' horizon tied to the user's planned job, and the words that say what a horizon
// the budget shortened means for the answer (evidence: reports/lr-horizon.md).
#include "engine/job_horizon.h"

#include <algorithm>
#include <cmath>

#include "util/table_format.h"

namespace tune {

double job_steps_at(const JobLength& job, double step_seconds) {
  if (job.steps > 0) return job.steps;
  if (job.hours > 0 && step_seconds > 0) return job.hours * 3600 / step_seconds;
  return 0;
}

int wanted_horizon(double job_steps, int lr_train_steps) {
  if (!(job_steps > 0)) return lr_train_steps;
  if (job_steps <= lr_train_steps) return std::max(1, static_cast<int>(std::ceil(job_steps)));
  return std::max(lr_train_steps, static_cast<int>(std::lround(job_steps / kHorizonReach)));
}

std::string describe_short_horizon(int afforded, int wanted, double job_steps, int trials) {
  if (afforded >= wanted) return "";
  const std::string of = job_steps > 0 ? strf("the %d steps a %.0f-step job calls for (a tenth of it; ", wanted, job_steps)
                                       : strf("lr_train_steps %d steps (", wanted);
  // Of the 18 family x seed x horizon cases of reports/lr-horizon.md, the best rate after 10 H steps was lower
  // than after H in 13 (3-10x) and never higher.
  return strf("horizon %d of %sthe budget affords %d trials of %d steps): rates ranked on shorter runs favour "
              "higher rates than a longer run's best (reports/lr-horizon.md: the best after 10x the steps was lower "
              "in 13 of 18 cases, never higher), so take the rate as an upper end; ",
              afforded, of.c_str(), trials, afforded);
}

std::string describe_job_horizon(int horizon, double job_steps) {
  if (!(job_steps > 0)) return "";
  return strf("horizon %d steps for a %.0f-step job; ", horizon, job_steps);
}

}  // namespace tune
