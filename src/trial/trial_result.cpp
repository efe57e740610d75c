// Constructors for trial results; JSON (de)serialisation is declared in the header.
// A failed result always carries the stage it failed in and the message that explains it.
#include "trial/trial_result.h"

#include <algorithm>
#include <numeric>

#include "util/check.h"

namespace tune {

void to_json(nlohmann::json& j, TrialStatus status) { j = to_string(status); }

void from_json(const nlohmann::json& j, TrialStatus& status) { status = parse_trial_status(j.get<std::string>()); }

void apply_held_out_score(const HeldOutScore& score, double held_out_label_entropy, TrialResult& r) {
  TUNE_CHECK(score.rows > 0, "a held-out score covers at least one row");
  r.held_out_rows = score.rows;
  r.held_out_loss = score.loss_sum / static_cast<double>(score.rows);
  r.held_out_accuracy = static_cast<double>(score.correct) / static_cast<double>(score.rows);
  r.score_loss = r.held_out_loss;
  r.label_prior_loss = held_out_label_entropy;
}

size_t tail_window(size_t losses) { return std::max<size_t>(2, losses / 4); }

double lowest_window_mean(const std::vector<double>& losses) {
  if (losses.empty()) return 0;
  const size_t n = std::min(losses.size(), tail_window(losses.size()));
  double sum = std::accumulate(losses.begin(), losses.begin() + n, 0.0), lowest = sum;
  for (size_t i = n; i < losses.size(); ++i) {
    sum += losses[i] - losses[i - n];
    lowest = std::min(lowest, sum);
  }
  return lowest / static_cast<double>(n);
}

double tail_mean_loss(const std::vector<double>& losses) {
  if (losses.empty()) return 0;
  const size_t n = tail_window(losses.size());
  const size_t from = losses.size() > n ? losses.size() - n : 0;
  return std::accumulate(losses.begin() + from, losses.end(), 0.0) / static_cast<double>(losses.size() - from);
}

TrialResult failed_result(TrialStatus status, const std::string& stage, const std::string& message) {
  TrialResult result;
  result.status = status;
  result.error_stage = stage;
  result.error_message = message;
  return result;
}

}  // namespace tune
