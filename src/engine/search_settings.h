// Search defaults from configs/search.yaml: batch range, learning rates, step counts, timeouts.
// Command-line flags override the budget and seed; the rest is tuned here, not in code.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace tune {

struct SearchSettings {
  double budget_seconds = 1200;      // default wall-clock budget of `tune --model`
  int min_batch_size = 1;            // the batch range [min, max]; the batch ramp starts at min and doubles
  int max_batch_size = 64;
  // On a GPU instance the range ends here instead: an H200 at seq 128 runs bert-base at batch 64 far from full (the
  // vendor table's 24 GB cards ran 160-288), so a 64 cap would mark every GPU row "largest tested".
  int gpu_max_batch_size = 1024;
  double ramp_learning_rate = 1e-4;
  std::vector<double> learning_rates{3e-5, 1e-4, 3e-4, 1e-3};
  // With --weights (fine-tuning a pretrained start): rates around those HF's fine-tuning recipes use.
  std::vector<double> pretrained_learning_rates{1e-5, 3e-5, 1e-4};
  // A best rate at the end of those tried is searched past, a factor at a time, within these bounds.
  double learning_rate_edge_factor = 3;
  std::vector<double> learning_rate_bounds{1e-7, 1.0};
  int warmup_steps = 3;
  int min_measure_steps = 6;         // 6: the fewest steps whose median has a 95% order-statistic CI
  int max_measure_steps = 30;
  double measure_seconds = 30;
  double ci_halfwidth = 0.02;        // stop timing once the median's 95% CI is within +-2%
  int lr_train_steps = 12;
  // A horizon after which even the best rate has not learned (trial/learned_share.h) is doubled, the rates run
  // again, up to this many steps while the budget fits them. configs: 96 (8 x 12); 0: never lengthened.
  int lr_max_train_steps = 0;
  // The schedule learning-rate trials train with, as a real job would (trial/lr_schedule.h): linear warm-up over
  // lr_warmup_share of the trial's steps, then constant or cosine decay. Two-stage only: time-to-loss trials
  // train at a constant rate (a shorter trial is the prefix of a longer one).
  std::string lr_schedule = "constant";
  double lr_warmup_share = 0;
  // A classifier's learning-rate trials score the trained model on this share of its labelled rows, held out from
  // training (data/held_out.h), not on their last steps' training loss. configs: 0.1; 0: the training loss.
  double held_out_share = 0;
  // The chosen rate and its runner-up train again from a second seed, always: the lower mean wins, and the two rates'
  // seed-to-seed spread on this model is the margin a tie is judged by (the table shows both rates of a tie).
  // configs: true. (It replaced seed_check_margin, a fixed 1% measured on tiny models, where full-size models'
  // spread was a median 4.6%.)
  bool seed_check = false;
  // The rate is searched once per precision (the first backend's search); the other backends start from its
  // scaling-rule rates at their batch with a local check. false: every backend runs the full search.
  bool lr_transfer = true;
  // With lr_transfer and seed_check: a later backend at the first one's batch and horizon reuses the rate its seed
  // check chose after one trial there whose loss lies within that check's seed-to-seed spread of the first one's
  // (engine/rate_stage.cpp); else it runs the transfer's local check. configs: true.
  bool lr_reuse = false;
  // The default coverage's screen (engine/screening.h): one throughput trial per backend x precision at this
  // batch; those below keep_share of the fastest's samples/s are not searched (a precision's native stays as
  // the baseline of its speed-ups while any of its backends is kept).
  int screen_batch_size = 8;
  double screen_keep_share = 0.8;
  // The screen's trials together take at most this share of the budget: each trial's timeout is what is left of
  // it less the median trial so far per pair after it (never over trial_timeout); a compile that does not fit is
  // a timeout, dropped.
  double screen_budget_share = 0.5;
  // The confirmation (engine/confirm_stage.cpp): native at its best against the fastest compiled backend at its
  // best, this many alternating rounds per precision (0: none), on this share of the budget, which the pairs leave.
  int confirm_rounds = 0;
  double confirm_budget_share = 0.2;
  // A round's trial stops timing after min_measure_steps once this much steady-state time is collected (or its CI
  // is tight): the verdict's interval is the rounds' spread, which one trial's own CI barely narrows. configs: 5 s.
  double confirm_measure_seconds = 5;
  // Observer trials (engine/observe_stage.cpp; `--observers`): after the search, the row's native and fastest
  // compiled config each timed without and with every observer named here (trial/observer_registry.h), in this many
  // alternating rounds of this many steps per side, in one process. Empty: none.
  std::vector<std::string> observers;
  int observer_rounds = 6;
  int observer_block_steps = 5;  // one profiler-schedule cycle (wait 1, warm-up 1, active 3)
  double ramp_budget_share = 0.6;    // of a backend's share of the budget; the rest is for learning rates
  // A compiled backend's batch ramp starts at the largest power of two at most half native's pick of its precision
  // and, from twice that pick on, ends at the first doubling that gains too little (engine/batch_stage.cpp): each
  // size is a cold compile. configs: true.
  bool compiled_ramp_from_native = false;
  double trial_timeout_seconds = 900;
  double memory_fraction = 0.85;     // of the instance's memory a CPU trial may grow by
  std::string batch_tuner = "batch_ramp";  // stage 1 strategy (tuners/, see `tune tuners`)
  std::string lr_tuner = "lr_sweep";       // stage 2 strategy
  int max_trials = 32;                     // per stage and backend
  // What the search optimises: "two-stage" (throughput, then loss after lr_train_steps at that batch) or
  // "time-to-loss" (the batch and rate reaching a target loss in the least wall time).
  std::string objective = "two-stage";
  double target_loss = 0;                 // time-to-loss: the target; 0: the reference config's score
  int target_samples = 1024;              // time-to-loss: samples each trial trains on
  int target_batch = 16;                  // time-to-loss: the reference config...
  double target_learning_rate = 3e-4;
  bool time_cap = true;                   // time-to-loss: stop a trial once it ran as long as the best time
  // Per strategy, its options (`tuner_options: {batch_ramp: {patience: 2}}`, --tuner-option): the defaults
  // are the strategy's own (`tune tuners` lists them).
  std::map<std::string, std::map<std::string, double>> tuner_options;
  std::map<std::string, double> options_for(const std::string& tuner) const;
  // The learning rates a search starts from: the fine-tuning list for a pretrained start (--weights), else the
  // from-scratch one.
  const std::vector<double>& start_learning_rates(bool pretrained) const {
    return pretrained ? pretrained_learning_rates : learning_rates;
  }
};

// Reads a settings YAML; absent keys keep their defaults. Throws std::invalid_argument naming the
// file, key and expected type.
// The settings a search on `device` uses: on a GPU ("cuda", "cuda:1") the range ends at gpu_max_batch_size.
SearchSettings settings_for_device(SearchSettings settings, const std::string& device);
SearchSettings load_search_settings(const std::string& yaml_path);
// "two-stage" or "time-to-loss"; throws std::invalid_argument quoting anything else.
std::string parse_search_objective(const std::string& text);
std::string default_search_settings_path();  // configs/search.yaml

}  // namespace tune
