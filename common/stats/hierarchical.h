// Two-level (hierarchical) bootstrap: the execution is the unit of evidence.
//
// Samples inside one execution share its process, clocks, caches and node; they are not
// independent, so resampling them as if they were makes intervals far too narrow. This bootstrap
// resamples at both levels (Davison & Hinkley 1997, sec. 3.8, "strategy 2"): each round draws k
// executions with replacement from the k executions, then, for every drawn execution, as many
// samples with replacement as it holds; the round's statistic is the median of the pooled draw.
// The interval is the percentile interval: type-7 quantiles alpha/2 and 1 - alpha/2 of the
// rounds' medians (numpy.quantile). Resampling both levels slightly over-states the variance
// (conservative); with one execution only the within-execution spread is seen (too narrow: the
// caller should say so; the scheduler runs at least repetitions.min executions).
//
// Reproducibility (the stream; scripts/stats_vectors/ transcribes it in Python and
// tests/data/stats/vectors.json pins the intervals): every index comes from Rng(seed) through
// packed draws (packed_indices.h), one round after another. When every execution holds the same n
// samples and R = k * n^n <= 65536 (e.g. k = 30 executions of n = 3), a round is k indices U in
// [0, R), packed: the drawn execution is U / n^n and its n sample indices are the base-n digits of
// U mod n^n, most significant first (U is uniform on the product range, so the execution and its
// samples are uniform and independent, exactly as drawing them one by one). Otherwise a round is
// k execution indices in [0, k) (one packed sequence), then, for each drawn execution in order, as
// many indices in [0, n_e) as it holds (a second packed sequence). Use a per-configuration seed
// (e.g. mixed with its ConfigHash) so configurations are independent.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "common/stats/bootstrap.h"
#include "common/status.h"

namespace fleetsweep::stats {

// Percentile CI of the median of the pooled samples under two-level resampling.
// Errors (InvalidArgument): no executions, an empty execution, a non-finite value, confidence
// outside (0, 1), resamples < 1. When every value is the same (one execution with one sample,
// say) every resample's median is that value: the point interval is returned without resampling
// (the same interval, at no cost: a 1,000,000-configuration sweep of one sample each).
StatusOr<Interval> HierarchicalBootstrapMedianCI(const std::vector<std::vector<double>>& executions,
                                                 double confidence = 0.95, int resamples = 2000,
                                                 uint64_t seed = 0);

// The rounds' medians themselves, in draw order (the values whose quantiles the CI is).
StatusOr<std::vector<double>> HierarchicalBootstrapMedians(
    const std::vector<std::vector<double>>& executions, int resamples, uint64_t seed);

}  // namespace fleetsweep::stats
