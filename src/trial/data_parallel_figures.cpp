#include "trial/data_parallel_figures.h"

#include <algorithm>

#include "stats/statistics.h"
#include "util/table_format.h"

namespace tune {

PairedRatio scaling_efficiency(const DataParallelPart& d) {
  return paired_ratio(round_ratios(d.solo_block_times, d.parallel_block_times), 0.95);
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
  if (!d.rank_peak_memory_bytes.empty()) {
    const auto [low, high] = std::minmax_element(d.rank_peak_memory_bytes.begin(), d.rank_peak_memory_bytes.end());
    text += strf(", peak memory per rank %.0f-%.0f MiB", *low / 1048576.0, *high / 1048576.0);
  }
  return text;
}

}  // namespace tune
