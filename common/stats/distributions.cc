#include "common/stats/distributions.h"

#include <cmath>
#include <limits>

namespace fleetsweep::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kSqrt2Pi = 2.50662827463100050242;
constexpr double kEps = 1e-16;
constexpr double kTiny = 1e-300;
constexpr int kMaxTerms = 100000;

// log Gamma(a) for a > 0 without touching the global `signgam` (std::lgamma writes it on glibc,
// which is a data race between threads).
double LogGamma(double a) {
#if defined(__GLIBC__)
  int sign = 0;
  return ::lgamma_r(a, &sign);
#else
  return std::lgamma(a);
#endif
}

// x^a e^-x / Gamma(a), the prefactor shared by the series and the continued fraction.
double GammaPrefactor(double a, double x) { return std::exp(a * std::log(x) - x - LogGamma(a)); }

// P(a, x) by the power series sum_n x^n / (a (a+1) ... (a+n)); converges fast for x < a + 1.
double GammaPSeries(double a, double x) {
  double term = 1.0 / a;
  double sum = term;
  for (int n = 1; n < kMaxTerms; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kEps) break;
  }
  return sum * GammaPrefactor(a, x);
}

// Q(a, x) by the Legendre continued fraction, evaluated with the modified Lentz method; converges
// fast for x > a + 1.
double GammaQContinuedFraction(double a, double x) {
  double b = x + 1.0 - a;
  double c = 1.0 / kTiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i < kMaxTerms; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kEps) break;
  }
  return h * GammaPrefactor(a, x);
}

// Acklam's rational approximation of Phi^-1(p) for 0 < p <= 0.5 (relative error < 1.2e-9).
double AcklamLowerHalf(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  if (p < 0.02425) {  // lower tail
    const double q = std::sqrt(-2.0 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  const double q = p - 0.5;  // central region
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

}  // namespace

double NormalCdf(double x) { return 0.5 * std::erfc(-x / kSqrt2); }

double NormalSf(double x) { return 0.5 * std::erfc(x / kSqrt2); }

double NormalQuantile(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return kNaN;
  if (p == 0.0) return -kInf;
  if (p == 1.0) return kInf;
  if (p == 0.5) return 0.0;
  // Work in the lower half, where p itself carries full relative precision; 1 - p is exact for
  // p in [0.5, 1].
  const bool upper = p > 0.5;
  const double lower_p = upper ? 1.0 - p : p;
  double x = AcklamLowerHalf(lower_p);
  for (int step = 0; step < 2; ++step) {  // Halley's method on Phi(x) - p
    const double pdf = std::exp(-0.5 * x * x) / kSqrt2Pi;
    if (!(pdf > 0.0)) break;
    const double u = (NormalCdf(x) - lower_p) / pdf;
    if (!std::isfinite(u)) break;
    x -= u / (1.0 + 0.5 * x * u);
  }
  return upper ? -x : x;
}

double RegularizedGammaP(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a <= 0.0 || x < 0.0) return kNaN;
  if (x == 0.0) return 0.0;
  if (std::isinf(x)) return 1.0;
  if (x < a + 1.0) return GammaPSeries(a, x);
  return 1.0 - GammaQContinuedFraction(a, x);
}

double RegularizedGammaQ(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a <= 0.0 || x < 0.0) return kNaN;
  if (x == 0.0) return 1.0;
  if (std::isinf(x)) return 0.0;
  if (x < a + 1.0) return 1.0 - GammaPSeries(a, x);
  return GammaQContinuedFraction(a, x);
}

double ChiSquareSf(double x, double df) {
  if (std::isnan(x) || std::isnan(df) || df <= 0.0) return kNaN;
  if (x <= 0.0) return 1.0;
  return RegularizedGammaQ(0.5 * df, 0.5 * x);
}

}  // namespace fleetsweep::stats
