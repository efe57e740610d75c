// A one-dimensional Gaussian-process regression (squared-exponential kernel) and its expected
// improvement: the surrogate the gp strategy fits to loss over log learning rate.
#pragma once
#include <vector>

namespace tune {

struct GpPrediction {
  double mean = 0;
  double stddev = 0;
};

class GaussianProcess1d {
 public:
  // length_scale in the units of x; noise: the observation variance relative to the signal's (1).
  GaussianProcess1d(double length_scale, double noise);
  // Fits the observations (y is standardised inside); needs at least one point.
  void fit(const std::vector<double>& x, const std::vector<double>& y);
  GpPrediction predict(double x) const;  // in the units of y
  // Expected improvement below `best` (minimisation), in the units of y.
  double expected_improvement(double x, double best) const;

 private:
  double kernel(double a, double b) const;

  double length_scale_, noise_;
  std::vector<double> x_;
  std::vector<double> alpha_;              // K^-1 (y - mean) / scale
  std::vector<std::vector<double>> chol_;  // lower Cholesky factor of K + noise I
  double y_mean_ = 0, y_scale_ = 1;
};

}  // namespace tune
