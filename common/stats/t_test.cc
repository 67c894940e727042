#include "common/stats/t_test.h"

#include <cmath>
#include <limits>
#include <string>

#include "common/stats/descriptive.h"

namespace fleetsweep::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-16;
constexpr double kTiny = 1e-300;

double LogGammaR(double a) {
#if defined(__GLIBC__)
  int sign = 0;
  return ::lgamma_r(a, &sign);
#else
  return std::lgamma(a);
#endif
}

// The continued fraction for I_x(a, b) (Numerical Recipes' betacf), modified Lentz.
double BetaContinuedFraction(double a, double b, double x) {
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m < 100000; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kEps) break;
  }
  return h;
}

// x^a (1-x)^b / (a B(a, b)) without the 1/a: the prefactor shared by both branches.
double BetaPrefactor(double a, double b, double x) {
  return std::exp(LogGammaR(a + b) - LogGammaR(a) - LogGammaR(b) + a * std::log(x) +
                  b * std::log1p(-x));
}

Status CheckValues(const std::vector<double>& xs, size_t min_n, const char* what) {
  FS_RETURN_IF_ERROR(CheckSample(xs, what));
  if (xs.size() < min_n) {
    return Status::InvalidArgument(std::string(what) + ": need at least " + std::to_string(min_n) +
                                   " values, got " + std::to_string(xs.size()));
  }
  return Status::Ok();
}

double MeanOf(const std::vector<double>& xs) {
  double s = 0;
  for (double x : xs) s += x;
  return s / static_cast<double>(xs.size());
}

double VarOf(const std::vector<double>& xs, double mean) {
  double s = 0;
  for (double x : xs) s += (x - mean) * (x - mean);
  return s / static_cast<double>(xs.size() - 1);
}

// Fills t and p from diff, se, df (two-sided), with the zero-variance convention.
TTestResult Finish(double diff, double se, double df) {
  TTestResult r;
  r.diff = diff;
  r.se = se;
  r.df = df;
  if (!(se > 0)) {
    r.t = diff == 0 ? 0.0 : (diff > 0 ? kInf : -kInf);
    r.p_value = diff == 0 ? 1.0 : 0.0;
    return r;
  }
  r.t = diff / se;
  r.p_value = std::fmin(1.0, 2.0 * StudentTSf(std::fabs(r.t), df));
  return r;
}

}  // namespace

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(x) || a <= 0 || b <= 0 || x < 0 || x > 1) {
    return kNaN;
  }
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  if (x < (a + 1.0) / (a + b + 2.0)) {
    return BetaPrefactor(a, b, x) * BetaContinuedFraction(a, b, x) / a;
  }
  return 1.0 - BetaPrefactor(b, a, 1.0 - x) * BetaContinuedFraction(b, a, 1.0 - x) / b;
}

double StudentTSf(double t, double df) {
  if (std::isnan(t) || std::isnan(df) || df <= 0) return kNaN;
  if (std::isinf(t)) return t > 0 ? 0.0 : 1.0;
  // P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2); the upper tail is half of it.
  const double x = df / (df + t * t);
  const double tail = 0.5 * RegularizedIncompleteBeta(0.5 * df, 0.5, x);
  return t > 0 ? tail : 1.0 - tail;
}

StatusOr<TTestResult> WelchTTest(const std::vector<double>& x, const std::vector<double>& y) {
  FS_RETURN_IF_ERROR(CheckValues(x, 2, "WelchTTest x"));
  FS_RETURN_IF_ERROR(CheckValues(y, 2, "WelchTTest y"));
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  const double mx = MeanOf(x), my = MeanOf(y);
  const double vx = VarOf(x, mx) / nx, vy = VarOf(y, my) / ny;
  const double se2 = vx + vy;
  const double df = se2 > 0 ? se2 * se2 / (vx * vx / (nx - 1) + vy * vy / (ny - 1)) : nx + ny - 2;
  return Finish(mx - my, std::sqrt(se2), df);
}

StatusOr<TTestResult> PooledVarianceT(const std::vector<double>& x, const std::vector<double>& y,
                                      double pooled_var, double df) {
  FS_RETURN_IF_ERROR(CheckValues(x, 1, "PooledVarianceT x"));
  FS_RETURN_IF_ERROR(CheckValues(y, 1, "PooledVarianceT y"));
  if (!(pooled_var >= 0) || !std::isfinite(pooled_var) || !(df > 0)) {
    return Status::InvalidArgument("PooledVarianceT: need pooled_var >= 0 and df > 0, got " +
                                   std::to_string(pooled_var) + ", " + std::to_string(df));
  }
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  return Finish(MeanOf(x) - MeanOf(y), std::sqrt(pooled_var * (1 / nx + 1 / ny)), df);
}

double PooledVariance(const std::vector<std::vector<double>>& groups, double* df) {
  double ss = 0, d = 0;
  for (const auto& g : groups) {
    if (g.size() < 2) continue;
    const double m = MeanOf(g);
    ss += VarOf(g, m) * static_cast<double>(g.size() - 1);
    d += static_cast<double>(g.size() - 1);
  }
  if (df != nullptr) *df = d;
  return d > 0 ? ss / d : 0.0;
}

}  // namespace fleetsweep::stats
