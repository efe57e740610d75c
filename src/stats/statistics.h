// Summary statistics every part of tune shares: the median (of step times, speedups, losses), the mean and
// the coefficient of variation. One definition, so a trial, the regression check and a report agree.
#pragma once
#include <optional>
#include <vector>

namespace tune {

// The middle value, or the mean of the two middle ones; 0 for no values.
double median(std::vector<double> values);
// The same for values already in ascending order.
double median_of_sorted(const std::vector<double>& sorted);
double mean(const std::vector<double>& values);  // 0 for no values
// exp of the mean log: the centre of rates and ratios that move by factors; 0 for no values, all positive (checked).
double geometric_mean(const std::vector<double>& values);
// Sample standard deviation over the mean; 0 for fewer than two values or a mean <= 0.
double coefficient_of_variation(const std::vector<double>& values);
// Highest less lowest, over the mean: how far repeats of one measurement lie apart, as a share of their centre (a
// rate's seed-to-seed spread in the seed check and in the table, a later backend's loss against it, a config's
// confirmation rounds). None for fewer than two values or a mean <= 0.
std::optional<double> range_over_mean(const std::vector<double>& values);
// Kendall's rank correlation (tau-b, ties counted) of two equally long lists: 1 when they order every pair
// alike, -1 when opposite; 0 for fewer than two values or when either list is all ties.
double kendall_tau(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace tune
