#include "trial/data_parallel_figures.h"

#include <algorithm>
#include <stdexcept>

#include "stats/statistics.h"
#include "trial/backend_registry.h"
#include "trial/measurement.h"
#include "util/table_format.h"

namespace tune {

std::string comm_backend(const TrialSpec& spec) {
  return spec.distributed.comm_backend == "auto" ? (device_kind(spec.step.device) == "cuda" ? "nccl" : "gloo")
                                                 : spec.distributed.comm_backend;
}

void check_data_parallel_spec(const TrialSpec& spec) {
  const DistributedSettings& d = spec.distributed;
  if (d.ranks < 2) throw std::invalid_argument(strf("data-parallel trial with %d rank(s): expected at least 2", d.ranks));
  const std::string expected = device_kind(spec.step.device) == "cuda" ? "nccl" : "gloo";
  if (comm_backend(spec) != expected)
    throw std::invalid_argument("communication backend '" + comm_backend(spec) + "' on " + spec.step.device +
                                ": expected gloo on a CPU, nccl on a GPU");
  if (spec.purpose == TrialPurpose::paired) throw std::invalid_argument("a paired trial cannot be data-parallel");
  if (!spec.step.observer.empty())
    throw std::invalid_argument("observer '" + spec.step.observer + "' on a data-parallel trial: observers under data "
                                "parallelism are not built yet (measure them on one process)");
  if (d.scaling_rounds < 2 || d.block_steps < 1 || !(d.bucket_cap_mb > 0) || !(d.collective_timeout_seconds > 0))
    throw std::invalid_argument(strf("data-parallel trial: %d scaling rounds of %d steps, buckets of %g MB, a %g s "
                                     "collective timeout: expected at least 2 rounds of 1 step and positive sizes",
                                     d.scaling_rounds, d.block_steps, d.bucket_cap_mb, d.collective_timeout_seconds));
}

DataParallelSchedule::DataParallelSchedule(const TrialSpec& spec) {
  if (spec.purpose == TrialPurpose::learning_rate) {
    warmup = std::max(spec.train_steps, 1);
    return;
  }
  warmup = spec.measure.warmup_steps;
  rounds = spec.distributed.scaling_rounds;
  block = spec.distributed.block_steps;
}

TrialSpec global_batch_spec(const TrialSpec& spec) {
  TrialSpec global = spec;
  global.batch_size = spec.batch_size * spec.distributed.ranks;
  return global;
}

std::string rank_device(const std::string& device, int rank) {
  if (device_kind(device) != "cuda") return device;
  const size_t colon = device.find(':');
  const std::string index = colon == std::string::npos ? "0" : device.substr(colon + 1);
  if (index.empty() || index.size() > 3 || index.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("device '" + device + "': expected cuda or cuda:N");
  return strf("cuda:%d", std::stoi(index) + rank);
}

void check_rank_gpus(const std::string& device, int ranks, int gpus) {
  if (device_kind(device) != "cuda" || ranks < 1) return;
  const std::string last = rank_device(device, ranks - 1);
  if (std::stoi(last.substr(last.find(':') + 1)) < gpus) return;
  throw std::invalid_argument(strf("%d ranks from %s need %s to %s, but this machine has %d CUDA device(s): NCCL runs "
                                   "one rank per GPU", ranks, device.c_str(), rank_device(device, 0).c_str(),
                                   last.c_str(), gpus));
}

TrialSpec rank_share_spec(const TrialSpec& spec, int rank) {
  TrialSpec own = spec;
  own.distributed.rank = rank;
  own.step.device = rank_device(spec.step.device, rank);
  if (spec.threads > 0) own.threads = std::max(1, spec.threads / spec.distributed.ranks);
  // CPU ranks share one memory; GPU ranks each have a device of their own, capped as one trial's would be.
  if (device_kind(spec.step.device) != "cuda") own.memory_limit_bytes = spec.memory_limit_bytes / spec.distributed.ranks;
  return own;
}

void keep_rate_trial_steps(const TrialSpec& spec, const std::vector<double>& parallel_step_times, TrialResult& r) {
  if (spec.purpose != TrialPurpose::learning_rate) return;
  const size_t skip = std::min(parallel_step_times.size(), static_cast<size_t>(std::max(spec.measure.warmup_steps, 0)));
  r.step_times.assign(parallel_step_times.begin() + static_cast<std::ptrdiff_t>(skip), parallel_step_times.end());
}

void summarise_data_parallel(const TrialSpec& spec, const std::vector<std::vector<double>>& rank_losses,
                             TrialResult& r) {
  std::vector<double> losses = rank_losses.empty() ? std::vector<double>{} : rank_losses.front();
  for (size_t rank = 1; rank < rank_losses.size(); ++rank)
    for (size_t i = 0; i < losses.size() && i < rank_losses[rank].size(); ++i) losses[i] += rank_losses[rank][i];
  for (double loss : losses)
    if (!record_loss(r, loss / spec.distributed.ranks)) return;
  for (double t : r.data_parallel.parallel_block_times)
    r.step_times.insert(r.step_times.end(), spec.distributed.block_steps, t);
  const auto& peaks = r.data_parallel.rank_peak_memory_bytes;
  if (!peaks.empty()) r.peak_memory_bytes = *std::max_element(peaks.begin(), peaks.end());
  r.status = TrialStatus::ok;
  summarise_steps(global_batch_spec(spec), r);
  r.steady_state_stop = strf("data-parallel: %d ranks, %d rounds of %d steps (all ranks, then rank 0 alone)",
                             spec.distributed.ranks, spec.distributed.scaling_rounds, spec.distributed.block_steps);
}

PairedRatio scaling_efficiency(const DataParallelPart& d) {
  return paired_ratio(round_ratios(d.solo_block_times, d.parallel_block_times), 0.95);
}

PairedRatio ddp_wrapping_cost(const DataParallelPart& d) {
  return paired_ratio(round_ratios(d.unsynced_block_times, d.solo_block_times), 0.95);
}

double exposed_comm_share(const DataParallelPart& d) {
  if (d.exposed_comm_seconds.empty() || d.parallel_block_times.empty()) return 0;
  const double step = median(d.parallel_block_times);
  return step > 0 ? median(d.exposed_comm_seconds) / step : 0;
}

std::string describe_data_parallel(const DataParallelPart& d) {
  if (d.ranks < 2) return "";
  std::string text = strf("%d ranks x batch %d (%s)", d.ranks, d.per_rank_batch, d.comm_backend.c_str());
  const PairedRatio e = scaling_efficiency(d);
  if (e.rounds >= 2)
    text += strf(": scaling efficiency %.2f (95%% CI %.2f-%.2f, %d rounds)", e.ratio, e.ci_low, e.ci_high, e.rounds);
  else if (e.rounds == 1)
    text += strf(": scaling efficiency %.2f in one round (no interval)", e.ratio);
  text += strf(", communication not hidden by the backward %.0f%% of a step", 100 * exposed_comm_share(d));
  const PairedRatio wrapping = ddp_wrapping_cost(d);
  if (wrapping.rounds >= 2)
    text += strf(", DDP without communication %.2fx the one-process step (95%% CI %.2f-%.2f%s)", wrapping.ratio,
                 wrapping.ci_low, wrapping.ci_high, d.buckets > 0 ? strf(", %d buckets", d.buckets).c_str() : "");
  if (!d.rank_peak_memory_bytes.empty()) {
    const auto [low, high] = std::minmax_element(d.rank_peak_memory_bytes.begin(), d.rank_peak_memory_bytes.end());
    text += strf(", peak memory per rank %.0f-%.0f MiB", *low / 1048576.0, *high / 1048576.0);
  }
  return text;
}

}  // namespace tune
