// Distribution functions the tests and intervals need: normal CDF/quantile, regularized incomplete
// gamma, chi-square survival function.
//
// These are total functions on doubles (no Status): arguments outside the domain return NaN, as
// SciPy does. Agreement with SciPy that stats_test enforces (tests/data/stats/vectors.json):
// 1e-13 relative for the normal quantile, 1e-12 for the normal CDF/SF, 1e-11 for the incomplete
// gamma and chi-square tail, including tails down to 1e-300 (a moderate shape a, up to a few
// hundred; the x^a e^-x prefactor loses ~|a log x| ulps beyond that).
//
// Thread-safety: pure functions; safe to call concurrently.
#pragma once

namespace fleetsweep::stats {

// Standard normal CDF Phi(x) (scipy.stats.norm.cdf), computed as erfc(-x/sqrt(2))/2 so that the
// lower tail keeps full relative precision.
double NormalCdf(double x);

// Standard normal survival function 1 - Phi(x) (scipy.stats.norm.sf), precise in the upper tail.
double NormalSf(double x);

// Standard normal quantile Phi^-1(p) (scipy.stats.norm.ppf): Acklam's rational approximation
// refined by two Halley steps on erfc. p = 0 gives -inf, p = 1 gives +inf, p outside [0, 1] or NaN
// gives NaN.
double NormalQuantile(double p);

// Regularized lower and upper incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x)
// (scipy.special.gammainc / gammaincc), for a > 0 and x >= 0: power series where x < a + 1,
// modified-Lentz continued fraction otherwise, each computed directly (never as 1 - the other
// where that would cancel). NaN outside the domain.
double RegularizedGammaP(double a, double x);
double RegularizedGammaQ(double a, double x);

// Chi-square survival function P(X > x) with df degrees of freedom (scipy.stats.chi2.sf):
// Q(df/2, x/2); 1 for x <= 0. NaN for df <= 0.
double ChiSquareSf(double x, double df);

}  // namespace fleetsweep::stats
