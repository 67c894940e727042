// Student's t distribution and two-sample t tests on per-execution summaries.
//
// The winner rule compares configurations by the means of their executions' log-medians: one
// value per execution, the unit of evidence (hierarchical.h says why samples are not). Two tests:
//   WelchTTest       unequal variances, Welch-Satterthwaite df: scipy.stats.ttest_ind(x, y,
//                    equal_var=False);
//   PooledVarianceT  a variance pooled over MANY groups (every configuration of the sweep) with
//                    its df: scipy.stats.ttest_ind(equal_var=True) when only x and y are pooled.
// p-values are two-sided, from StudentTSf. Agreement with SciPy (tests/data/stats/vectors.json):
// 1e-9 relative for p-values, 1e-11 for statistics; RegularizedIncompleteBeta 1e-11 relative
// against scipy.special.betainc.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "common/status.h"

namespace fleetsweep::stats {

// I_x(a, b) (scipy.special.betainc(a, b, x)) for a, b > 0 and 0 <= x <= 1: the continued fraction
// (modified Lentz) on whichever of x, 1 - x converges; NaN outside the domain.
double RegularizedIncompleteBeta(double a, double b, double x);

// P(T > t) for Student's t with df > 0 degrees of freedom (scipy.stats.t.sf); NaN for df <= 0.
double StudentTSf(double t, double df);

struct TTestResult {
  double t = 0;        // (mean(x) - mean(y)) / standard error
  double df = 0;       // degrees of freedom
  double p_value = 1;  // two-sided
  double diff = 0;     // mean(x) - mean(y)
  double se = 0;       // standard error of diff
};

// Welch's test. Needs at least two values in each sample (InvalidArgument otherwise, and for a
// non-finite value). When both variances are 0: t = +-inf and p = 0 if the means differ, t = 0 and
// p = 1 if not (SciPy returns NaN there).
StatusOr<TTestResult> WelchTTest(const std::vector<double>& x, const std::vector<double>& y);

// The t test of mean(x) - mean(y) with a given pooled variance estimate `pooled_var` on `df`
// degrees of freedom (computed over all groups of a design): t = diff / sqrt(pooled_var (1/nx +
// 1/ny)). Needs non-empty samples, pooled_var >= 0 and df > 0 (InvalidArgument otherwise);
// pooled_var == 0 is handled like WelchTTest's zero-variance case.
StatusOr<TTestResult> PooledVarianceT(const std::vector<double>& x, const std::vector<double>& y,
                                      double pooled_var, double df);

// Pooled variance over groups: sum (n_i - 1) s_i^2 / sum (n_i - 1), groups of one value add
// nothing. *df receives sum (n_i - 1) (0 when no group has two values; the result is then 0).
double PooledVariance(const std::vector<std::vector<double>>& groups, double* df);

}  // namespace fleetsweep::stats
