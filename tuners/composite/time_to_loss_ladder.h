// A strategy over strategies: the time-to-loss stage, driven like any strategy, asks a learning-rate strategy
// at each rung of a batch ladder (or one strategy over the joint batch x rate space) for the batch size and
// learning rate that reach a target loss in the least wall time (steps to the target x the step time).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuners/time_to_target.h"
#include "tuners/tuner.h"
#include "tuners/tuner_space.h"

namespace tune {

// One trial of the stage, scored: steps_to_target 0 and seconds_to_target 0 when it never got there.
struct TimeToLossTrial {
  Candidate candidate;          // as run (train_steps resolved)
  TrialResult result;
  int steps_to_target = 0;
  double seconds_to_target = 0;
  bool reaches() const { return steps_to_target > 0; }
};

struct TimeToLossOutcome {
  double target_loss = 0;
  std::string target_source;    // how the target was set, for the output
  int target_samples = 0;
  std::vector<TimeToLossTrial> trials;  // in the order they ran, the reference trial first
  std::optional<TimeToLossTrial> best;  // the fewest seconds to the target, on the pooled clock
  std::string stop;                     // why the stage ended
  // The clock the best is chosen on: per batch, the median over the throughput stage's step time and every
  // trial's at that batch (each a process of its own).
  std::map<int, double> step_seconds;
};

struct TimeToLossPlan {
  TimeToLossTarget target;
  std::map<int, double> step_seconds;  // the throughput stage: batch -> median step time, sizes that fit
  int throughput_batch = 1;            // the throughput stage's choice: the ladder starts there
  int max_batch_size = 64;             // the ladder walks up to it (below any size that failed)
  std::string lr_tuner = "lr_sweep";   // a learning-rate strategy runs a batch ladder; grid or random, the joint space
  TunerSpace lr_space;                 // learning rates, options and max_trials of the strategy
  uint64_t seed = 0;
  // Stop a trial once it has run as long as the best time to the target so far (the joint space), or as the
  // best before its rung began (the ladder, so a rung's trials compare at one length): it can no longer win.
  bool time_cap = true;
  // ...plus this share: before its rung has run, a batch's step time is one throughput trial's, off by up to
  // 30-50% against another batch's on the 2-core CPU (reports/tuner-efficiency.md: the throughput stage against
  // the judge's clock); a batch measured slow still gets to reach the target, and its own trials then set its
  // time on the pooled clock (TimeToLossOutcome::step_seconds).
  double time_cap_margin = 0.5;
  // Rungs in a row that may miss (no faster than the best rung before them) before a walk ends.
  int walk_patience = 2;
};

// The reference trial (unless the plan has a target), then either the strategy over the joint space of
// fitting batch sizes x learning rates (strategies that search batch sizes too: grid, random), or a batch
// ladder: the strategy over its whole list at the throughput stage's batch, then halving the batch with the
// scaling-rule rates from the best so far (lr_sweep over all three) while the time to the target improves (or
// misses fewer than walk_patience rungs in a row), and not past a halving the large-batch model rules out, then
// doubling from the start rung likewise; a rung's best rate at the end of its rates is searched past (try_edge), the first rung's by the
// edge extension around its strategy. A candidate an earlier, longer trial of the same batch and rate answers
// is never asked.
class TimeToLossLadder : public Tuner {
 public:
  explicit TimeToLossLadder(TimeToLossPlan plan);
  ~TimeToLossLadder() override;
  std::string name() const override { return "time-to-loss ladder"; }
  // The fewest seconds to the target so far, on the pooled clock as it stands.
  std::optional<ToldTrial> best() const override;
  // The stage's outcome: the best chosen on the pooled clock; ended_by_budget when the driver stopped asking.
  TimeToLossOutcome outcome(bool ended_by_budget) const;

 private:
  enum class Phase { start, reference, joint, first_rung, walk_rung, edge, done };
  std::optional<Candidate> propose() override;
  void observe(const Candidate& candidate, const TrialResult& result) override;

  void begin();
  void start_search();
  std::optional<Candidate> next_from_inner();
  void inner_done();
  void begin_walk(bool down);
  void walk_next();
  void try_edge();
  void edge_told(const TimeToLossTrial& t);
  void rung_done(std::optional<TimeToLossTrial> rung_best);
  void missed(int best_batch);
  void walk_ended(const std::string& why);
  void finish(const std::string& why);
  std::string budget_stop() const;

  TimeToLossTrial scored(const Candidate& c, const TrialResult& r, const std::map<int, double>& clock) const;
  std::map<int, double> clock() const;
  TimeToLossTrial rescored(const TimeToLossTrial& t) const;
  std::vector<TimeToLossTrial> told_scored() const;
  std::optional<TimeToLossTrial> current_best() const;
  void start_rung_cap();
  void note_for_rung(const TimeToLossTrial& t);
  int fitting_batch_at_most(int batch) const;
  int steps_for(const Candidate& c, bool uncapped) const;
  std::optional<double> best_seconds() const;
  std::optional<size_t> longer_run_of(const Candidate& c) const;
  TimeToLossTrial cut_to(size_t earlier, const Candidate& c);
  TunerSpace space_at(int min_batch, int max_batch, std::vector<double> rates) const;
  std::optional<TimeToLossTrial> fastest_at(int batch, std::optional<TimeToLossTrial> rung_best) const;
  std::optional<std::string> model_rules_out(const TimeToLossTrial& larger, const TimeToLossTrial& smaller) const;
  double lowest_loss_rate(size_t first) const;

  TimeToLossPlan plan_;
  Phase phase_ = Phase::start;
  double target_loss_ = 0;
  std::string target_source_;
  bool searched_ = false;  // the target is set and the search began
  std::optional<Candidate> asked_;       // the reference or edge candidate awaiting its result
  // The strategy of the joint space or of the current rung, and the candidate of it the driver runs.
  std::unique_ptr<Tuner> inner_;
  std::optional<Candidate> inner_pending_;
  std::optional<TimeToLossTrial> rung_fastest_;  // the fastest to the target among the rung's answers
  // The time cap: the joint space's trials stop at the best time so far; every trial of a ladder rung
  // stops at the best time before the rung began, so the rung's losses compare at equal lengths.
  bool joint_ = false;
  std::optional<double> rung_cap_;
  std::map<int, double> rung_clock_;  // the clock when the rung began: its cap in steps
  // The walk: its start rung, its direction, the rung it stands on and the one it runs.
  int start_ = 0;
  std::optional<TimeToLossTrial> start_best_;
  size_t start_first_ = 0;
  bool down_ = true;
  int batch_ = 0, next_batch_ = 0;
  size_t rung_first_ = 0;
  std::vector<double> rung_rates_;
  std::optional<TimeToLossTrial> rung_best_, previous_best_;
  std::string down_why_;
  std::vector<int> misses_;  // the rungs in a row since the best rung of the walk that did not improve on it
};

// The outcome for `tune --json`: target, best and every trial (batch, rate, steps, time to the target).
nlohmann::json time_to_loss_json(const TimeToLossOutcome& outcome);

}  // namespace tune
