// Gaussian-process regression by Cholesky factorisation, sized for a few dozen trials (O(n^3) is
// nothing here); expected improvement from the closed form with the normal CDF and density.
#include "tuners/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace tune {
namespace {

constexpr double kPi = 3.14159265358979323846;

double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * kPi); }
double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Lower-triangular L with L L^T = a; a is symmetric positive definite (the noise term sees to it).
std::vector<std::vector<double>> cholesky(const std::vector<std::vector<double>>& a) {
  const size_t n = a.size();
  std::vector<std::vector<double>> l(n, std::vector<double>(n, 0.0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j <= i; ++j) {
      double sum = a[i][j];
      for (size_t k = 0; k < j; ++k) sum -= l[i][k] * l[j][k];
      if (i == j) {
        if (sum <= 0) {  // cannot happen with a positive noise term: an internal error
          std::fprintf(stderr, "tune: Gaussian-process kernel matrix is not positive definite\n");
          std::abort();
        }
        l[i][i] = std::sqrt(sum);
      } else {
        l[i][j] = sum / l[j][j];
      }
    }
  return l;
}

// Solves L z = b (forward) or L^T z = b (backward).
std::vector<double> solve_lower(const std::vector<std::vector<double>>& l, std::vector<double> b, bool transposed) {
  const size_t n = l.size();
  for (size_t step = 0; step < n; ++step) {
    const size_t i = transposed ? n - 1 - step : step;
    double sum = b[i];
    for (size_t k = 0; k < n; ++k)
      if (transposed ? k > i : k < i) sum -= (transposed ? l[k][i] : l[i][k]) * b[k];
    b[i] = sum / l[i][i];
  }
  return b;
}

}  // namespace

GaussianProcess1d::GaussianProcess1d(double length_scale, double noise) : length_scale_(length_scale), noise_(noise) {}

double GaussianProcess1d::kernel(double a, double b) const {
  const double d = (a - b) / length_scale_;
  return std::exp(-0.5 * d * d);
}

void GaussianProcess1d::fit(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  x_ = x;
  y_mean_ = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double v : y) var += (v - y_mean_) * (v - y_mean_);
  y_scale_ = n > 1 && var > 0 ? std::sqrt(var / static_cast<double>(n)) : 1.0;
  std::vector<std::vector<double>> k(n, std::vector<double>(n));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) k[i][j] = kernel(x[i], x[j]) + (i == j ? noise_ + 1e-9 : 0.0);
  chol_ = cholesky(k);
  std::vector<double> centred(n);
  for (size_t i = 0; i < n; ++i) centred[i] = (y[i] - y_mean_) / y_scale_;
  alpha_ = solve_lower(chol_, solve_lower(chol_, centred, false), true);
}

GpPrediction GaussianProcess1d::predict(double x) const {
  std::vector<double> k_star(x_.size());
  for (size_t i = 0; i < x_.size(); ++i) k_star[i] = kernel(x, x_[i]);
  const double mean = std::inner_product(k_star.begin(), k_star.end(), alpha_.begin(), 0.0);
  const std::vector<double> v = solve_lower(chol_, k_star, false);
  const double var = std::max(0.0, 1.0 - std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
  return {y_mean_ + y_scale_ * mean, y_scale_ * std::sqrt(var)};
}

double GaussianProcess1d::expected_improvement(double x, double best) const {
  const GpPrediction p = predict(x);
  if (p.stddev <= 0) return std::max(0.0, best - p.mean);
  const double z = (best - p.mean) / p.stddev;
  return (best - p.mean) * normal_cdf(z) + p.stddev * normal_pdf(z);
}

}  // namespace tune
