// Percentile bootstrap confidence interval of the median, seeded and reproducible.
//
// Method: draw `resamples` resamples of size n with replacement from the sample, take each
// resample's median (numpy.median convention), and return the type-7 quantiles alpha/2 and
// 1 - alpha/2 (alpha = 1 - confidence) of those medians: the "percentile" interval of
// scipy.stats.bootstrap(method='percentile'). SciPy's random stream differs, so the numbers are
// not comparable draw for draw; stats_test checks determinism and coverage instead.
//
// Reproducibility: the resampling indices come from Rng (xoshiro256**, rng.h) seeded with `seed`,
// so a given (sample, confidence, resamples, seed) gives the same interval on every machine and
// build. Use a per-configuration seed (e.g. its ConfigHash) so configurations are independent.
//
// Cost: O(n) per resample and no allocation with a reused workspace: the sample is sorted once,
// a resample's median is found by counting how many draws hit each sorted position (four 16-bit
// draws per 64-bit Rng output for n < 256), and for n <= 64 the medians are tallied per position
// pair so the quantiles come from a few distinct values instead of a selection over all
// resamples. See docs/performance.md "## Aggregation" for measured times (n = 30, 2000 resamples).
//
// Thread-safety: the functions are pure; a BootstrapWorkspace must not be shared between threads.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "common/status.h"

namespace fleetsweep::stats {

struct Interval {
  double low = 0;
  double high = 0;
};

// Reusable scratch buffers for calling BootstrapMedianCI in a loop without allocating.
struct BootstrapWorkspace {
  std::vector<double> sorted;
  std::vector<uint32_t> counts;
  std::vector<double> medians;
  std::vector<uint32_t> pair_counts;
  std::vector<std::pair<double, uint32_t>> tally;
};

// Percentile bootstrap CI of the median of `samples`.
// Errors (InvalidArgument): empty sample, non-finite value, confidence outside (0, 1),
// resamples < 1, more than 2^32 - 1 samples. n == 1 gives low == high == the value.
// `workspace` may be null (a temporary is used).
StatusOr<Interval> BootstrapMedianCI(const std::vector<double>& samples, double confidence = 0.95,
                                     int resamples = 2000, uint64_t seed = 0,
                                     BootstrapWorkspace* workspace = nullptr);

// The `resamples` resampled medians themselves, in draw order: exactly the values whose
// quantiles BootstrapMedianCI(samples, confidence, resamples, seed) returns (for diagnostics and
// plots). Same errors as BootstrapMedianCI.
StatusOr<std::vector<double>> BootstrapMedians(const std::vector<double>& samples, int resamples,
                                               uint64_t seed);

// Relative half-width of an interval around a center: (high - low) / 2 / |center|. This is the
// "is it tight enough" number the adaptive repetition loop compares with its target (e.g. 0.02).
// center == 0 gives +inf (0 when the interval is a point); NaN propagates.
double RelativeHalfWidth(const Interval& ci, double center);

}  // namespace fleetsweep::stats
