// Descriptive statistics of one sample: median, quantiles, MAD, mean, standard deviation.
//
// Every function takes the sample by const reference and never modifies it (it works on a private
// copy where it needs to reorder). Input rules, shared by all of them: the sample must be
// non-empty and every value finite; otherwise the result is an InvalidArgument Status whose
// message names the function and, for a bad value, its index. Results agree with numpy/SciPy to
// 1e-12 relative (1e-10 for the standard deviation) on tests/data/stats/vectors.json, made by
// scripts/gen_stats_vectors.py.
//
// Thread-safety: all functions are pure and may be called concurrently.
#pragma once

#include <vector>

#include "common/status.h"

namespace fleetsweep::stats {

// Phi^-1(3/4). Dividing the MAD by it (i.e. multiplying by ~1.4826) gives a consistent estimate of
// the standard deviation for normal data; SciPy's median_abs_deviation(scale='normal') does the
// same division.
inline constexpr double kNormalQuartile = 0.6744897501960817;

// Ok if `xs` is non-empty and all values are finite; `what` names the caller in the message.
Status CheckSample(const std::vector<double>& xs, const char* what);

// Median; for an even count the mean of the two middle values. Matches numpy.median.
StatusOr<double> Median(const std::vector<double>& xs);

// Sample quantile, Hyndman-Fan type 7 (linear interpolation between order statistics at
// h = (n-1)q): numpy.quantile(xs, q) with the default method='linear', R's quantile(type=7).
// q must lie in [0, 1].
StatusOr<double> Quantile(const std::vector<double>& xs, double q);

// Median absolute deviation from the median, median(|x - median(x)|).
// scaled == false: SciPy median_abs_deviation(x) (scale=1.0).
// scaled == true: SciPy median_abs_deviation(x, scale='normal'), i.e. raw MAD / kNormalQuartile (~
// * 1.4826).
StatusOr<double> Mad(const std::vector<double>& xs, bool scaled = false);

// Arithmetic mean (numpy.mean).
StatusOr<double> Mean(const std::vector<double>& xs);

// Standard deviation with `ddof` delta degrees of freedom: sqrt(sum((x-mean)^2) / (n - ddof)).
// ddof = 1 (default) is the sample standard deviation, numpy.std(x, ddof=1); ddof = 0 is
// numpy.std(x). Requires n > ddof (InvalidArgument otherwise).
StatusOr<double> StdDev(const std::vector<double>& xs, int ddof = 1);

// All of the above for one sample, in one pass over a single copy.
struct Summary {
  size_t n = 0;
  double min = 0, max = 0;
  double median = 0;
  double mad = 0;         // raw MAD
  double mad_normal = 0;  // mad / kNormalQuartile
  double mean = 0;
  double stddev = 0;  // ddof = 1; 0 when n == 1
};
StatusOr<Summary> Summarize(const std::vector<double>& xs);

// Building blocks for hot loops. They skip input validation (the caller has checked the sample),
// reorder *buf in place and require a non-empty buffer (FS_CHECK otherwise).
double MedianInPlace(std::vector<double>* buf);
// The same over the non-empty range [first, last).
double MedianInPlace(double* first, double* last);
double QuantileInPlace(std::vector<double>* buf, double q);
// Median of a copy of `v` (the caller's vector is not reordered), 0 for an empty one; no
// validation (the scheduler and the aggregator use it on samples they have checked).
double MedianOf(std::vector<double> v);
// Type-7 quantile of an already sorted, non-empty range.
double QuantileSorted(const double* sorted, size_t n, double q);

}  // namespace fleetsweep::stats
