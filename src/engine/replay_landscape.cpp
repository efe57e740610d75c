// Replaying trials from a recorded landscape: exact where recorded, interpolated between, so every
// strategy can be run and compared on the same deterministic results without a machine.
#include "engine/replay_landscape.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <stdexcept>

#include "util/table_format.h"

namespace tune {
namespace {

double through(double x0, double y0, double x1, double y1, double x) {
  return x1 == x0 ? y0 : y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

// Between two recorded sizes that fit: samples/s in log batch, memory linear in the batch.
RecordedBatch between(int b, int lo, const RecordedBatch& a, int hi, const RecordedBatch& c) {
  const double log_b = std::log2(b), log_lo = std::log2(lo), log_hi = std::log2(hi);
  return {TrialStatus::ok, through(log_lo, a.samples_per_second, log_hi, c.samples_per_second, log_b),
          static_cast<int64_t>(through(lo, a.peak_memory_bytes, hi, c.peak_memory_bytes, b))};
}

using Fits = std::vector<std::pair<int, RecordedBatch>>;

// Outside the sizes that fit: memory on the line of the nearest two; samples/s flat above them
// (throughput has flattened), proportional to the batch below them.
RecordedBatch extrapolated(int b, const Fits& fits) {
  const bool above = b > fits.back().first;
  const size_t n = fits.size();
  const auto& [s0, r0] = above ? fits[n > 1 ? n - 2 : 0] : fits[0];
  const auto& [s1, r1] = above ? fits[n - 1] : fits[n > 1 ? 1 : 0];
  const double memory = s0 == s1 ? static_cast<double>(r0.peak_memory_bytes) * b / s0
                                 : through(s0, r0.peak_memory_bytes, s1, r1.peak_memory_bytes, b);
  const double speed = above ? r1.samples_per_second : r0.samples_per_second * b / s0;
  return {TrialStatus::ok, speed, static_cast<int64_t>(memory)};
}

}  // namespace

ReplayLandscape::ReplayLandscape(int64_t memory_limit_bytes, int default_train_steps, double trial_overhead_seconds)
    : memory_limit_bytes_(memory_limit_bytes),
      default_train_steps_(default_train_steps),
      trial_overhead_seconds_(trial_overhead_seconds) {}

void ReplayLandscape::record_batch(int batch_size, const RecordedBatch& batch) { batches_[batch_size] = batch; }

void ReplayLandscape::record_losses(int batch_size, double learning_rate, std::vector<double> losses) {
  losses_[batch_size][learning_rate] = std::move(losses);
}

std::vector<int> ReplayLandscape::recorded_batch_sizes() const {
  std::vector<int> sizes;
  for (const auto& entry : batches_) sizes.push_back(entry.first);
  return sizes;
}

RecordedBatch ReplayLandscape::batch_at(int b) const {
  Fits fits;
  for (const auto& [size, record] : batches_) {
    if (record.status == TrialStatus::ok) fits.emplace_back(size, record);
    else if (size <= b) return {record.status, 0, 0};  // a size that failed fails bigger too
  }
  if (fits.empty()) return {TrialStatus::oom, 0, 0};
  const auto hi = std::find_if(fits.begin(), fits.end(), [b](const auto& f) { return f.first >= b; });
  RecordedBatch out;
  if (hi != fits.end() && hi->first == b) out = hi->second;
  else if (hi != fits.end() && hi != fits.begin())
    out = between(b, std::prev(hi)->first, std::prev(hi)->second, hi->first, hi->second);
  else out = extrapolated(b, fits);
  if (memory_limit_bytes_ > 0 && out.peak_memory_bytes > memory_limit_bytes_) out.status = TrialStatus::oom;
  return out;
}

int ReplayLandscape::nearest_batch_with_losses(int batch_size) const {
  int nearest = 0;
  for (const auto& entry : losses_)
    if (nearest == 0 || std::fabs(std::log2(static_cast<double>(entry.first) / batch_size)) <
                            std::fabs(std::log2(static_cast<double>(nearest) / batch_size)))
      nearest = entry.first;
  return nearest;
}

std::vector<double> ReplayLandscape::losses_at(int batch_size, double lr, int steps) const {
  const auto& curves = losses_.at(nearest_batch_with_losses(batch_size));
  auto hi = curves.lower_bound(lr);
  auto lo = hi == curves.begin() || (hi != curves.end() && hi->first == lr) ? hi : std::prev(hi);
  if (hi == curves.end()) hi = lo;  // beyond the recorded rates: the last curve
  const double t = hi->first == lo->first ? 0 : std::log(lr / lo->first) / std::log(hi->first / lo->first);
  if (steps > static_cast<int>(std::min(lo->second.size(), hi->second.size())))
    throw std::invalid_argument(strf("train_steps %d: the landscape records %zu steps at most", steps,
                                     std::min(lo->second.size(), hi->second.size())));
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    const double a = lo->second[i], b = hi->second[i];
    // Where only one neighbour diverged the nearer one decides: divergence starts halfway between rates.
    if (!std::isfinite(a) || !std::isfinite(b)) losses.push_back(t < 0.5 ? a : b);
    else losses.push_back(a + (b - a) * t);
  }
  return losses;
}

TrialResult ReplayLandscape::replay(const Candidate& candidate) const {
  const RecordedBatch batch = batch_at(candidate.batch_size);
  if (batch.status != TrialStatus::ok)
    return failed_result(batch.status, "step", strf("replayed: batch %d does not fit", candidate.batch_size));
  TrialResult r;
  r.status = TrialStatus::ok;
  r.samples_per_second = batch.samples_per_second;
  r.step_time_median = candidate.batch_size / batch.samples_per_second;
  r.peak_memory_bytes = batch.peak_memory_bytes;
  const int steps = candidate.train_steps > 0 ? candidate.train_steps : default_train_steps_;
  if (!losses_.empty())
    for (double loss : losses_at(candidate.batch_size, candidate.learning_rate, steps)) {
      r.losses.push_back(loss);
      if (std::isfinite(loss)) continue;
      r.status = TrialStatus::diverged;
      r.error_stage = "step";
      r.error_message = strf("loss became %f at step %zu", loss, r.losses.size());
      break;
    }
  if (r.ok() && !r.losses.empty()) r.score_loss = tail_mean_loss(r.losses);
  r.wall_seconds = trial_seconds(candidate, r);
  return r;
}

double ReplayLandscape::trial_seconds(const Candidate& candidate, const TrialResult& result) const {
  if (result.status == TrialStatus::oom || result.step_time_median <= 0) return trial_overhead_seconds_;
  const int steps = candidate.train_steps > 0 ? candidate.train_steps : default_train_steps_;
  const size_t run = result.losses.empty() ? static_cast<size_t>(steps) : result.losses.size();
  return trial_overhead_seconds_ + static_cast<double>(run) * result.step_time_median;
}

}  // namespace tune
