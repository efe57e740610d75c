// One backend x precision's trials as the driver sees them: its study in the store as the source (a stored
// result is reused, a new trial runs in its own process and is committed), the stage's deadline as the budget,
// and the trial spec each candidate becomes (the measurement protocol of the settings).
#pragma once
#include <optional>
#include <string>

#include "engine/search_driver.h"
#include "engine/search_run.h"
#include "engine/trial_time_predictor.h"

namespace tune {

class StudyTrials : public TrialSource, public Budget {
 public:
  // `outcome` (its study, backend and precision) collects what the trials cost; `deadline` in seconds since the
  // search began.
  StudyTrials(SearchRun& search, BackendOutcome& outcome, double deadline);

  std::optional<TrialResult> stored(const Candidate& candidate) override;
  TrialResult run(const Candidate& candidate) override;
  std::optional<std::string> refuses(const Candidate& candidate) override;

  // The driver over `tuner` with these trials as its source and budget; a stage the budget ended says so in the
  // progress. first_trial_free: the stage's first trial runs whatever the budget says.
  DriveOutcome drive(Tuner& tuner, bool first_trial_free);
  // The stored result of `candidate`, else a new trial's: what the driver does, for trials a stage adds itself.
  TrialResult stored_or_run(const Candidate& candidate);
  // What a trial measured before this search (its pair's screening trial) teaches the budget's predictor, so
  // even the stage's first trial is held to the budget.
  void learn_from(const Candidate& candidate, const TrialResult& result);
  // The longest horizon of at most `wanted` steps (and at least `fewest`) at which `trials` learning-rate trials
  // at `batch` are predicted to fit the time left; `wanted` when even the fewest do not (the budget then cuts).
  int affordable_horizon(int batch, int wanted, int fewest, int trials);
  // Whether `trials` learning-rate trials of `steps` steps at `batch` are predicted to fit the time left.
  bool horizon_fits(int batch, int steps, int trials);
  // The spec a candidate runs as in this stage.
  TrialSpec spec(const Candidate& candidate) const;

  // The next stage's purpose and deadline (seconds since the search began).
  void next_stage(TrialPurpose purpose, double deadline);
  // Added to the request's seed in the specs: the second-seed check trains rates again from seed + 1.
  void set_seed_offset(uint64_t offset) { seed_offset_ = offset; }
  // The repeat the specs carry (the confirmation's rounds: 1, 2, ...; 0: the search's own trials).
  void set_repeat(int repeat) { repeat_ = repeat; }
  // The steady-state time after which the specs' trials stop timing (the confirmation's rounds: its own setting).
  void set_measure_seconds(double seconds) { measure_seconds_ = seconds; }
  // Paired trials (the observe stage's): the members, rounds and block steps their specs carry.
  void set_paired(const PairedSettings& paired) { paired_ = paired; }
  // A limit on this stage's trials below the settings' trial_timeout (the screen's share of the budget).
  void set_timeout(double seconds) { timeout_ = seconds; }
  std::optional<double> timeout() const { return timeout_; }
  // The steps of a learning-rate trial whose candidate names none (0: the settings' lr_train_steps).
  void set_horizon(int steps) { horizon_ = steps; }
  TrialPurpose purpose() const { return purpose_; }
  std::string label() const { return "[" + outcome_.backend + " " + outcome_.precision + "]"; }

 private:
  void check_inputs_unchanged() const;
  // runs_dir/study-N: the study's trial folders and compile caches.
  std::string study_dir() const;
  // The study's compile cache for the shape of `batch_size` (the Inductor caches a trial there shares).
  std::string compile_cache_dir(int batch_size) const;
  void note(const TrialSpec& spec, const TrialResult& result);
  // `ticked`: progress lines were written since the trial's head line, so the result starts a line of its own.
  void print_finished(const TrialSpec& spec, const TrialResult& result, bool ticked) const;
  std::string head(const TrialSpec& spec) const;
  // The line a long trial's progress ticker writes: how long it runs against the predictor's expectation, what this
  // backend finished, and the search's clock against its budget.
  std::string running_line(double running_seconds, double expected_seconds) const;
  // Runs the trial through the search's executor with a progress line every kProgressSeconds; says whether any was
  // written.
  TrialResult execute(const TrialSpec& spec, const std::string& dir, double expected_seconds, bool& ticked) const;

  SearchRun& search_;
  BackendOutcome& outcome_;
  TrialPurpose purpose_ = TrialPurpose::throughput;
  int horizon_ = 0;
  std::optional<double> timeout_;
  uint64_t seed_offset_ = 0;
  int repeat_ = 0;
  std::optional<double> measure_seconds_;
  PairedSettings paired_;
  double deadline_;
  TrialTimePredictor predictor_;
};

}  // namespace tune
