// The time-to-loss stage: the target from a reference trial, then a batch ladder (learning-rate
// strategies) or the joint batch x rate space (grid, random), every trial capped by the best time so far.
#include "engine/time_to_loss_search.h"

#include <algorithm>
#include <cmath>

#include "trial/step_statistics.h"
#include "tuners/tuner_registry.h"
#include "util/table_format.h"

namespace tune {
namespace {

class TimeToLossSearch {
 public:
  TimeToLossSearch(const TimeToLossPlan& plan, const TimeToLossRunner& run) : plan_(plan), run_(run) {}

  TimeToLossOutcome search() {
    out_.target_samples = plan_.target.samples;
    if (plan_.step_seconds.empty()) return stopped("no batch size fit in the throughput stage");
    if (!set_target()) return out_;
    const bool joint = tuner_supports(plan_.lr_tuner, StageObjective::throughput);
    if (joint) run_joint();
    else run_ladder();
    choose_on_pooled_clock();
    return out_;
  }

 private:
  TimeToLossOutcome stopped(const std::string& why) {
    out_.stop = why;
    return out_;
  }

  // The plan's target, or the final score of the reference config after target.samples samples.
  bool set_target() {
    if (plan_.target.loss > 0) {
      out_.target_loss = plan_.target.loss;
      out_.target_source = "--target-loss";
      return true;
    }
    const int batch = fitting_batch_at_most(plan_.target.reference_batch);
    const double lr = plan_.target.reference_learning_rate;
    const auto trial = run_one(Candidate{batch, lr, 0}, /*uncapped=*/true);
    if (!trial || !trial->result.ok()) {
      budget_spent_ = !trial;
      out_.stop = trial ? "the reference trial failed: " + to_string(trial->result.status) + " " +
                              trial->result.error_message.substr(0, 160)
                        : "budget: the reference trial did not fit";
      return false;
    }
    out_.target_loss = trial->result.score_loss;
    out_.target_source = strf("score of the reference config (batch %d, lr %.1e) after %d samples", batch, lr,
                              plan_.target.samples);
    score(out_.trials.back());
    return true;
  }

  int fitting_batch_at_most(int batch) const {
    auto it = plan_.step_seconds.upper_bound(batch);
    return it == plan_.step_seconds.begin() ? it->first : std::prev(it)->first;
  }

  double step_seconds(int batch, const TrialResult& result) const {
    const auto& clock = out_.step_seconds.empty() ? plan_.step_seconds : out_.step_seconds;
    const auto it = clock.find(batch);
    return it != clock.end() ? it->second : result.step_time_median;
  }

  // One process's step time moved by up to 25% on the 2-core CPU, more than two batch sizes that tie differ
  // (the trials are short): the choice is made on the median over every process that ran the batch.
  void choose_on_pooled_clock() {
    std::map<int, std::vector<double>> samples;
    for (const auto& [batch, seconds] : plan_.step_seconds) samples[batch].push_back(seconds);
    for (const auto& t : out_.trials)
      if (t.result.ok() && t.result.step_time_median > 0)
        samples[t.candidate.batch_size].push_back(t.result.step_time_median);
    for (const auto& [batch, seconds] : samples) out_.step_seconds[batch] = step_statistics(seconds).median;
    out_.best.reset();
    for (auto& t : out_.trials) score(t);
  }

  // Full length is target.samples samples; with a best time, no longer than it: a trial that has not
  // reached the target by then cannot beat it (a tie keeps the earlier best).
  int steps_for(const Candidate& c, bool uncapped) const {
    int steps = c.train_steps > 0 ? c.train_steps : steps_for_samples(plan_.target.samples, c.batch_size);
    const std::optional<double> best = joint_ ? best_seconds() : rung_cap_;
    if (uncapped || !plan_.time_cap || !best) return steps;
    const auto it = plan_.step_seconds.find(c.batch_size);
    if (it == plan_.step_seconds.end()) return steps;
    // At least one score window, so the trial's loss still tells a learning-rate strategy something.
    const int cap = static_cast<int>(std::ceil(*best * (1 + plan_.time_cap_margin) / it->second - 1e-9));
    return std::min(steps, std::max(cap, score_window(plan_.target.samples, c.batch_size)));
  }

  std::optional<double> best_seconds() const {
    return out_.best ? std::optional<double>(out_.best->seconds_to_target) : std::nullopt;
  }

  // An earlier trial of the same batch and rate at least this long: with the same seed its curve
  // starts with this one's, so it answers the candidate at no cost (the reference trial, mostly).
  const TimeToLossTrial* longer_run_of(const Candidate& c) const {
    for (const auto& t : out_.trials)
      if (t.candidate.batch_size == c.batch_size && t.candidate.learning_rate == c.learning_rate &&
          t.candidate.train_steps >= c.train_steps)
        return &t;
    return nullptr;
  }

  // The earlier curve's first c.train_steps steps, scored as a trial of that length (a strategy compares
  // a rung's trials at equal lengths).
  TimeToLossTrial cut_to(const TimeToLossTrial& earlier, const Candidate& c) {
    TimeToLossTrial cut{c, earlier.result, 0, 0};
    if (!cut.result.ok()) return cut;
    cut.result.losses.resize(std::min<size_t>(cut.result.losses.size(), c.train_steps));
    cut.result.score_loss = tail_mean_loss(cut.result.losses);
    score(cut);
    return cut;
  }

  std::optional<TimeToLossTrial> run_one(Candidate c, bool uncapped = false) {
    c.train_steps = steps_for(c, uncapped);
    if (const TimeToLossTrial* earlier = longer_run_of(c)) return cut_to(*earlier, c);
    const auto result = run_(c);
    if (!result) return std::nullopt;
    out_.trials.push_back({c, *result, 0, 0});
    if (out_.target_loss > 0) score(out_.trials.back());
    return out_.trials.back();
  }

  void score(TimeToLossTrial& t) {
    if (!t.result.ok()) return;
    const int window = score_window(plan_.target.samples, t.candidate.batch_size);
    const auto steps = steps_to_reach(t.result.losses, out_.target_loss, window);
    if (!steps) return;
    t.steps_to_target = *steps;
    t.seconds_to_target = *steps * step_seconds(t.candidate.batch_size, t.result);
    if (!out_.best || t.seconds_to_target < out_.best->seconds_to_target) out_.best = t;
  }

  // Asks the tuner until it is done or the budget ends the stage; the best of the run by time.
  std::optional<TimeToLossTrial> drive(Tuner& tuner) {
    std::optional<TimeToLossTrial> best;
    while (const auto candidate = tuner.ask()) {
      const auto trial = run_one(*candidate);
      if (!trial) {
        out_.stop = "budget: the next trial does not fit";
        budget_spent_ = true;
        return best;
      }
      tuner.tell(*candidate, trial->result);
      if (trial->reaches() && (!best || trial->seconds_to_target < best->seconds_to_target)) best = trial;
    }
    out_.stop = tuner.stop_reason();
    return best;
  }

  TunerSpace space_at(int min_batch, int max_batch, std::vector<double> rates) const {
    TunerSpace space = plan_.lr_space;
    space.objective = StageObjective::loss;
    space.min_batch_size = min_batch;
    space.max_batch_size = max_batch;
    space.train_steps = max_batch == min_batch ? steps_for_samples(plan_.target.samples, max_batch) : 0;
    if (!rates.empty()) {
      space.learning_rates = rates;
      space.min_learning_rate = *std::min_element(rates.begin(), rates.end());
      space.max_learning_rate = *std::max_element(rates.begin(), rates.end());
    }
    return space;
  }

  void run_joint() {
    joint_ = true;
    const int lo = plan_.step_seconds.begin()->first, hi = plan_.step_seconds.rbegin()->first;
    const auto tuner = make_tuner(plan_.lr_tuner, space_at(lo, hi, {}), plan_.seed);
    drive(*tuner);
    out_.stop = "joint batch x learning-rate space: " + out_.stop;
  }

  // The strategy at the throughput batch, then a walk down the batch sizes; when the first halving
  // does not improve, a walk up instead (the ramp may have stopped early on a noisy measurement).
  void run_ladder() {
    const int start = plan_.throughput_batch;
    TunerSpace first = space_at(start, start, {});
    if (plan_.lr_tuner == "lr_sweep" && !first.options.count("start_near"))
      first.options["start_near"] = sqrt_rule_rate(plan_.target.reference_learning_rate,
                                                   fitting_batch_at_most(plan_.target.reference_batch), start);
    auto rung = make_tuner(plan_.lr_tuner, first, plan_.seed);
    const size_t start_first = out_.trials.size();
    rung_cap_ = best_seconds();
    const auto start_best = fastest_at(start, drive(*rung));
    if (budget_spent_) return;
    int improved = 0;
    const std::string down = walk(start, start_best, start_first, true, improved);
    if (budget_spent_ || improved > 0) {
      out_.stop = "batch ladder down: " + down;
      return;
    }
    const std::string up = walk(start, start_best, start_first, false, improved);
    out_.stop = "batch ladder down: " + down + "; up: " + up;
  }

  // Halves (or doubles) the batch with the same, square-root and linear scaling-rule rates from the
  // previous rung's best, until a rung is no faster than the one before it (or no longer reaches the
  // target once one has); rungs before the first that reaches it go on. Returns why it stopped.
  std::string walk(int batch, std::optional<TimeToLossTrial> rung_best, size_t rung_first, bool down,
                   int& improved) {
    std::optional<TimeToLossTrial> previous_best = rung_best;
    for (;;) {
      const int next = down ? batch / 2 : batch * 2;
      const bool fits = down ? plan_.step_seconds.count(next) > 0 : next <= plan_.max_batch_size;
      if (!fits) return strf("batch %d is the %s in range", batch, down ? "smallest" : "largest");
      const double lr = rung_best ? rung_best->candidate.learning_rate : lowest_loss_rate(rung_first);
      TunerSpace scaled = space_at(next, next, scaling_rule_rates(lr, batch, next));
      scaled.options = {{"start_near", sqrt_rule_rate(lr, batch, next)}};  // not the first rung's strategy's
      auto rung = make_tuner("lr_sweep", scaled, plan_.seed);
      rung_first = out_.trials.size();
      rung_cap_ = best_seconds();
      rung_best = drive(*rung);
      if (!budget_spent_) rung_best = fastest_at(next, beyond_the_edge(rung_best, scaled.learning_rates));
      if (budget_spent_) return "budget";
      if (rung_best ? previous_best && rung_best->seconds_to_target >= previous_best->seconds_to_target
                    : previous_best.has_value())
        return strf("batch %d did not improve on batch %d", next, batch);
      ++improved;
      if (down && previous_best && rung_best)
        if (const auto why = model_rules_out(*previous_best, *rung_best)) return *why;
      previous_best = rung_best;
      batch = next;
    }
  }

  // After two rungs that reached the target, the large-batch model's steps at the next halving: when even
  // they would take at least the best time, the rung cannot win and is not run (why, for the output).
  std::optional<std::string> model_rules_out(const TimeToLossTrial& larger, const TimeToLossTrial& smaller) const {
    const int batch = smaller.candidate.batch_size / 2;
    const auto step = plan_.step_seconds.find(batch);
    if (step == plan_.step_seconds.end() || !out_.best) return std::nullopt;
    const double steps = large_batch_model_steps({larger.candidate.batch_size, double(larger.steps_to_target)},
                                                 {smaller.candidate.batch_size, double(smaller.steps_to_target)}, batch);
    if (steps * step->second < out_.best->seconds_to_target) return std::nullopt;
    return strf("batch %d not run: the large-batch model through batch %d (%d steps) and %d (%d steps) predicts "
                "%.1f steps, %.3f s, no faster than the best so far %.3f s (throughput stage's clock)",
                batch, larger.candidate.batch_size, larger.steps_to_target, smaller.candidate.batch_size,
                smaller.steps_to_target, steps, steps * step->second, out_.best->seconds_to_target);
  }

  // The rung's best, or an earlier trial at its batch that reached the target faster (the reference trial):
  // a rung is judged against the best known at its batch.
  std::optional<TimeToLossTrial> fastest_at(int batch, std::optional<TimeToLossTrial> rung_best) const {
    for (const auto& t : out_.trials)
      if (t.candidate.batch_size == batch && t.reaches() && (!rung_best || t.seconds_to_target < rung_best->seconds_to_target))
        rung_best = t;
    return rung_best;
  }

  // When a rung's best rate is the largest (or smallest) it tried, the optimum may lie beyond: one more
  // trial a factor 2 further out (the scaling rules only move the rate with the batch).
  std::optional<TimeToLossTrial> beyond_the_edge(std::optional<TimeToLossTrial> best, const std::vector<double>& rates) {
    if (!best || rates.size() < 2) return best;
    const double lr = best->candidate.learning_rate;
    const bool top = lr >= *std::max_element(rates.begin(), rates.end());
    const bool bottom = lr <= *std::min_element(rates.begin(), rates.end());
    if (!top && !bottom) return best;
    const double next = top ? lr * 2 : lr / 2;
    if (next > plan_.lr_space.max_learning_rate || next < plan_.lr_space.min_learning_rate) return best;
    const auto trial = run_one(Candidate{best->candidate.batch_size, next, 0});
    if (!trial) {
      budget_spent_ = true;
      return best;
    }
    return trial->reaches() && trial->seconds_to_target < best->seconds_to_target ? trial : best;
  }

  // The rate of the lowest final loss among trials from `first` on (the reference rate if none ran).
  double lowest_loss_rate(size_t first) const {
    const TimeToLossTrial* lowest = nullptr;
    for (size_t i = first; i < out_.trials.size(); ++i)
      if (out_.trials[i].result.ok() && (!lowest || out_.trials[i].result.score_loss < lowest->result.score_loss))
        lowest = &out_.trials[i];
    return lowest ? lowest->candidate.learning_rate : plan_.target.reference_learning_rate;
  }

  const TimeToLossPlan& plan_;
  const TimeToLossRunner& run_;
  TimeToLossOutcome out_;
  bool budget_spent_ = false;
  // The time cap: the joint space's trials stop at the best time so far; every trial of a ladder rung
  // stops at the best time before the rung began, so the rung's losses compare at equal lengths.
  bool joint_ = false;
  std::optional<double> rung_cap_;
};

nlohmann::json trial_json(const TimeToLossTrial& t) {
  return {{"batch_size", t.candidate.batch_size}, {"learning_rate", t.candidate.learning_rate},
          {"train_steps", t.candidate.train_steps}, {"status", to_string(t.result.status)},
          {"score_loss", t.result.score_loss}, {"reaches_target", t.reaches()},
          {"steps_to_target", t.steps_to_target}, {"seconds_to_target", t.seconds_to_target},
          {"wall_seconds", t.result.wall_seconds}};
}

}  // namespace

nlohmann::json time_to_loss_json(const TimeToLossOutcome& outcome) {
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : outcome.trials) trials.push_back(trial_json(t));
  nlohmann::json clock = nlohmann::json::object();
  for (const auto& [batch, seconds] : outcome.step_seconds) clock[std::to_string(batch)] = seconds;
  return {{"target_loss", outcome.target_loss}, {"target_source", outcome.target_source}, {"step_seconds", clock},
          {"target_samples", outcome.target_samples}, {"stop", outcome.stop},
          {"best", outcome.best ? trial_json(*outcome.best) : nlohmann::json()}, {"trials", trials}};
}

TimeToLossOutcome search_time_to_loss(const TimeToLossPlan& plan, const TimeToLossRunner& run) {
  return TimeToLossSearch(plan, run).search();
}

}  // namespace tune
