// Hodges-Lehmann estimate of the location shift between two samples, with a distribution-free CI.
//
// The estimate is the median of the n*m pairwise differences x_i - y_j (positive: x tends to be
// larger than y). The interval is [D(k), D(N+1-k)], D(1) <= ... <= D(N) the sorted differences,
// N = n*m, with k from the null distribution of the Mann-Whitney U statistic: k = the smallest q
// with P(U <= q) >= alpha/2, alpha = 1 - confidence (the rule of R's
// wilcox.test(x, y, conf.int = TRUE); SciPy has no equivalent). Under a pure shift model with
// continuous data the interval covers the true shift with probability 1 - 2 P(U <= k-1), reported
// as achieved_confidence.
//   - exact (n < 50 and m < 50, as in R): P(U <= q) from the exact null distribution of U,
//     computed by the recurrence f(a, b, u) = f(a-1, b, u-b) + f(a, b-1, u); ties are ignored there
//     (with ties the interval is slightly conservative);
//   - otherwise the normal approximation with continuity correction and the tie-corrected
//     variance used by MannWhitneyU: P(U <= q) ~ Phi((q + 0.5 - nm/2) / sigma).
// When the samples are too small for the requested confidence (P(U = 0) >= alpha/2), k = 1 like R,
// and achieved_confidence (< confidence) says so: check it before calling two samples different.
//
// Cost: O(nm) memory and O(nm) time for the differences (plus O(n^2 m^2) once for the exact
// table); more than 5e7 pairs is refused with InvalidArgument.
//
// Thread-safety: pure function; safe to call concurrently.
#pragma once

#include <vector>

#include "common/stats/bootstrap.h"
#include "common/status.h"

namespace fleetsweep::stats {

struct ShiftEstimate {
  double estimate = 0;             // median of x_i - y_j
  Interval ci;                     // [D(k), D(N+1-k)]
  double achieved_confidence = 0;  // 1 - 2 P(U <= k-1) under the method used
  bool exact = false;              // exact U distribution (true) or normal approximation
};

// Errors (InvalidArgument): empty sample, non-finite value, confidence outside (0, 1), too many
// pairs.
StatusOr<ShiftEstimate> HodgesLehmannShift(const std::vector<double>& x,
                                           const std::vector<double>& y, double confidence = 0.95);

// Exact null CDF of the Mann-Whitney U statistic (no ties) for sample sizes n and m:
// result[u] = P(U <= u), u = 0..n*m. Requires n, m >= 1 (empty result otherwise); costs
// O(n^2 m^2) time and O(n^2 m) memory, intended for n, m below ~100.
std::vector<double> MannWhitneyExactCdf(int n, int m);

}  // namespace fleetsweep::stats
