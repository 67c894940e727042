#include "common/stats/descriptive.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace fleetsweep::stats {

Status CheckSample(const std::vector<double>& xs, const char* what) {
  if (xs.empty()) return Status::InvalidArgument(std::string(what) + ": empty sample");
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!std::isfinite(xs[i])) {
      return Status::InvalidArgument(std::string(what) + ": non-finite value at index " +
                                     std::to_string(i));
    }
  }
  return Status::Ok();
}

namespace {

// numpy's _lerp: a + (b-a)t, evaluated from the nearer end so that t == 1 returns b exactly.
double Lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

}  // namespace

double MedianInPlace(double* first, double* last) {
  FS_CHECK(last > first);
  const size_t n = static_cast<size_t>(last - first);
  const size_t mid = n / 2;
  std::nth_element(first, first + mid, last);
  const double upper = first[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(first, first + mid);
  return (lower + upper) / 2;
}

double MedianInPlace(std::vector<double>* buf) {
  FS_CHECK(!buf->empty());
  return MedianInPlace(buf->data(), buf->data() + buf->size());
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  return MedianInPlace(&v);
}

double QuantileInPlace(std::vector<double>* buf, double q) {
  FS_CHECK(!buf->empty());
  const size_t n = buf->size();
  const double h = static_cast<double>(n - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  if (lo > n - 1) lo = n - 1;
  const double t = h - static_cast<double>(lo);
  std::nth_element(buf->begin(), buf->begin() + lo, buf->end());
  const double a = (*buf)[lo];
  if (lo + 1 >= n) return a;
  const double b = *std::min_element(buf->begin() + lo + 1, buf->end());
  return Lerp(a, b, t);
}

double QuantileSorted(const double* sorted, size_t n, double q) {
  FS_CHECK(n > 0);
  const double h = static_cast<double>(n - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  if (lo > n - 1) lo = n - 1;
  if (lo + 1 >= n) return sorted[lo];
  return Lerp(sorted[lo], sorted[lo + 1], h - static_cast<double>(lo));
}

StatusOr<double> Median(const std::vector<double>& xs) {
  FS_RETURN_IF_ERROR(CheckSample(xs, "Median"));
  std::vector<double> buf = xs;
  return MedianInPlace(&buf);
}

StatusOr<double> Quantile(const std::vector<double>& xs, double q) {
  FS_RETURN_IF_ERROR(CheckSample(xs, "Quantile"));
  if (!(q >= 0.0 && q <= 1.0)) {
    return Status::InvalidArgument("Quantile: q must be in [0, 1], got " + std::to_string(q));
  }
  std::vector<double> buf = xs;
  return QuantileInPlace(&buf, q);
}

StatusOr<double> Mad(const std::vector<double>& xs, bool scaled) {
  FS_RETURN_IF_ERROR(CheckSample(xs, "Mad"));
  std::vector<double> buf = xs;
  const double med = MedianInPlace(&buf);
  for (double& v : buf) v = std::fabs(v - med);
  const double mad = MedianInPlace(&buf);
  return scaled ? mad / kNormalQuartile : mad;
}

StatusOr<double> Mean(const std::vector<double>& xs) {
  FS_RETURN_IF_ERROR(CheckSample(xs, "Mean"));
  double sum = 0;
  for (double v : xs) sum += v;
  return sum / static_cast<double>(xs.size());
}

StatusOr<double> StdDev(const std::vector<double>& xs, int ddof) {
  FS_RETURN_IF_ERROR(CheckSample(xs, "StdDev"));
  if (ddof < 0 || xs.size() <= static_cast<size_t>(ddof)) {
    return Status::InvalidArgument("StdDev: need more than ddof=" + std::to_string(ddof) +
                                   " values, got " + std::to_string(xs.size()));
  }
  double sum = 0;
  for (double v : xs) sum += v;
  const double mean = sum / static_cast<double>(xs.size());
  double ss = 0;
  for (double v : xs) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(xs.size() - static_cast<size_t>(ddof)));
}

StatusOr<Summary> Summarize(const std::vector<double>& xs) {
  FS_RETURN_IF_ERROR(CheckSample(xs, "Summarize"));
  Summary s;
  s.n = xs.size();
  double sum = 0;
  s.min = s.max = xs[0];
  for (double v : xs) {
    sum += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = sum / static_cast<double>(s.n);
  double ss = 0;
  for (double v : xs) ss += (v - s.mean) * (v - s.mean);
  s.stddev = s.n > 1 ? std::sqrt(ss / static_cast<double>(s.n - 1)) : 0.0;
  std::vector<double> buf = xs;
  s.median = MedianInPlace(&buf);
  for (double& v : buf) v = std::fabs(v - s.median);
  s.mad = MedianInPlace(&buf);
  s.mad_normal = s.mad / kNormalQuartile;
  return s;
}

}  // namespace fleetsweep::stats
