// Bayesian optimisation of the learning rate: stratified seeded start, then expected improvement on
// a dense grid of log rates; a rate already tried (within 0.02 decades) is never proposed again.
#include "tuners/gp_search.h"

#include <algorithm>
#include <cmath>

#include "tuners/gaussian_process.h"
#include "util/table_format.h"

namespace tune {
namespace {

constexpr int kProposalGrid = 256;
constexpr double kSameRateDecades = 0.02;

}  // namespace

const OptionList& GpSearch::options() {
  static const OptionList list{{
      {"initial", 4,
       "rates drawn before the surrogate proposes, one per equal slice of the log range at a seeded position within it"},
      {"trials", 10, "all trials, initial ones included (never more than max_trials)"},
      {"length_scale", 0.5, "the kernel's length in decades of learning rate"},
      {"noise", 0.01, "observation noise, relative to the variance of the losses"},
      {"min_improvement", 0.001, "stop when the best expected improvement is below this share of the best loss"},
  }};
  return list;
}

GpSearch::GpSearch(const TunerSpace& space, uint64_t seed)
    : Tuner(StageObjective::loss, space.max_trials),
      space_(space),
      trials_(std::min(space.max_trials, static_cast<int>(options().value(space, "trials")))),
      lo_(std::log10(space.min_learning_rate)),
      hi_(std::log10(space.max_learning_rate)) {
  std::mt19937_64 rng(seed);
  const int initial = std::max(1, static_cast<int>(options().value(space, "initial")));
  for (int i = 0; i < initial; ++i) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // uniform in [0, 1), the same on every platform
    initial_.push_back(lo_ + (i + u) / initial * (hi_ - lo_));
  }
}

// Usable losses as they are; failures as the worst loss plus half the spread (nothing without a usable one).
void GpSearch::observations(std::vector<double>& x, std::vector<double>& y) const {
  double best = 0, worst = 0;
  bool any = false;
  for (const auto& [c, r] : told())
    if (is_usable(r, StageObjective::loss)) {
      best = any ? std::min(best, r.score_loss) : r.score_loss;
      worst = any ? std::max(worst, r.score_loss) : r.score_loss;
      any = true;
    }
  if (!any) return;
  const double penalty = worst + std::max(0.5 * (worst - best), 0.1 * std::fabs(worst));
  for (const auto& [c, r] : told()) {
    x.push_back(std::log10(c.learning_rate));
    y.push_back(is_usable(r, StageObjective::loss) ? r.score_loss : penalty);
  }
}

std::optional<double> GpSearch::next_log_rate() {
  std::vector<double> x, y;
  observations(x, y);
  if (x.empty()) return std::nullopt;
  GaussianProcess1d gp(options().value(space_, "length_scale"), options().value(space_, "noise"));
  gp.fit(x, y);
  const double best = *std::min_element(y.begin(), y.end());
  std::optional<double> chosen;
  double chosen_ei = 0;
  for (int i = 0; i < kProposalGrid; ++i) {
    const double u = lo_ + (hi_ - lo_) * i / (kProposalGrid - 1);
    if (std::any_of(x.begin(), x.end(), [u](double t) { return std::fabs(t - u) < kSameRateDecades; })) continue;
    const double ei = gp.expected_improvement(u, best);
    if (!chosen || ei > chosen_ei) {
      chosen = u;
      chosen_ei = ei;
    }
  }
  const double min_improvement = options().value(space_, "min_improvement");
  if (!chosen || chosen_ei < min_improvement * std::fabs(best)) {
    stop_reason_ = strf("expected improvement below %.2g of the best loss %.4g", min_improvement, best);
    return std::nullopt;
  }
  return chosen;
}

std::optional<Candidate> GpSearch::propose() {
  if (pending_) return pending_;
  if (done_) return std::nullopt;
  if (static_cast<int>(told().size()) >= trials_) {
    stop_reason_ = strf("ran all %d trials", trials_);
    done_ = true;
    return std::nullopt;
  }
  const auto u = told().size() < initial_.size() ? std::optional<double>(initial_[told().size()]) : next_log_rate();
  if (!u) {
    if (stop_reason_.empty()) stop_reason_ = "no learning rate trained without failing";
    done_ = true;
    return std::nullopt;
  }
  pending_ = Candidate{space_.max_batch_size, std::pow(10.0, *u), space_.train_steps};
  return pending_;
}

void GpSearch::observe(const Candidate&, const TrialResult&) { pending_.reset(); }

}  // namespace tune
