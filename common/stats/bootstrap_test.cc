// Bootstrap CI of the median: determinism by seed, statistical coverage, edge cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "common/stats/stats.h"

namespace fleetsweep::stats {
namespace {

// n standard-normal-based samples mu + sigma z, drawn by inversion from our own Rng so the test
// data are the same on every platform.
std::vector<double> NormalSample(Rng* rng, size_t n, double mu, double sigma) {
  std::vector<double> xs(n);
  for (double& x : xs) {
    double u;
    do u = rng->Uniform01();
    while (u == 0.0);
    x = mu + sigma * NormalQuantile(u);
  }
  return xs;
}

TEST(Bootstrap, SameSeedSameIntervalDifferentSeedDifferent) {
  Rng data_rng(1);
  const std::vector<double> xs = NormalSample(&data_rng, 30, 100.0, 5.0);
  const Interval a = *BootstrapMedianCI(xs, 0.95, 2000, 42);
  const Interval b = *BootstrapMedianCI(xs, 0.95, 2000, 42);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  BootstrapWorkspace ws;  // the workspace path gives the same answer, also when reused
  for (int i = 0; i < 2; ++i) {
    const Interval w = *BootstrapMedianCI(xs, 0.95, 2000, 42, &ws);
    EXPECT_EQ(w.low, a.low);
    EXPECT_EQ(w.high, a.high);
  }
  // Different seeds give different resamples. The resampled medians are discrete (midpoints of
  // order statistics), so with 2000 resamples an endpoint often repeats across seeds; with 200
  // the Monte Carlo noise moves nearly every interval.
  int differing_200 = 0, differing_2000 = 0;
  const Interval a200 = *BootstrapMedianCI(xs, 0.95, 200, 42);
  for (uint64_t seed = 43; seed < 51; ++seed) {
    const Interval c = *BootstrapMedianCI(xs, 0.95, 200, seed);
    if (c.low != a200.low || c.high != a200.high) ++differing_200;
    const Interval d = *BootstrapMedianCI(xs, 0.95, 2000, seed);
    if (d.low != a.low || d.high != a.high) ++differing_2000;
  }
  EXPECT_GE(differing_200, 6);
  EXPECT_GE(differing_2000, 1);
  const double median = *Median(xs);
  EXPECT_LE(a.low, median);
  EXPECT_GE(a.high, median);
  EXPECT_LT(a.low, a.high);
}

TEST(Bootstrap, IntervalIsPercentileOfResampledMedians) {
  // The fast paths (position-pair tally for n <= 64, selection above; 16-bit lanes below 256
  // samples, 32-bit above) must give exactly the type-7 quantiles of the resampled medians.
  Rng data_rng(3);
  for (size_t n : {2, 3, 9, 30, 31, 64, 65, 100, 300}) {
    std::vector<double> xs = NormalSample(&data_rng, n, 5.0, 1.0);
    if (n > 3) xs[1] = xs[0];  // a tie
    for (double conf : {0.95, 0.8}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " conf=" + std::to_string(conf));
      const Interval ci = *BootstrapMedianCI(xs, conf, 999, 77);
      const std::vector<double> medians = *BootstrapMedians(xs, 999, 77);
      ASSERT_EQ(medians.size(), 999u);
      EXPECT_EQ(ci.low, *Quantile(medians, (1 - conf) / 2));
      EXPECT_EQ(ci.high, *Quantile(medians, 1 - (1 - conf) / 2));
      // Each resampled median is a sample value (odd n) or the midpoint of two (even n).
      std::vector<double> sorted = xs;
      std::sort(sorted.begin(), sorted.end());
      const double m = medians[0];
      bool found = false;
      for (size_t a = 0; a < n && !found; ++a) {
        for (size_t b = a; b < n && !found; ++b) found = (sorted[a] + sorted[b]) / 2 == m;
      }
      EXPECT_TRUE(found);
    }
  }
}

TEST(Bootstrap, MediansCenterOnSampleMedian) {
  // The mean of the resampled medians of a symmetric sample sits near its median, and the
  // spread of the 16-bit-lane draws covers the whole sample (every position is drawn).
  std::vector<double> xs;
  for (int i = 0; i < 41; ++i) xs.push_back(i);
  const std::vector<double> medians = *BootstrapMedians(xs, 4000, 9);
  EXPECT_NEAR(*Mean(medians), 20.0, 0.3);
  EXPECT_NEAR(*StdDev(medians), 3.0, 0.8);  // ~ 1.2533 * sd(x) / sqrt(n) = 2.37..3.3
}

TEST(Bootstrap, CoverageOfTrueMedianIsNearNominal) {
  // 400 data sets of n = 30 from N(10, 2^2) (true median 10): the 95% interval must cover 10 in
  // 90-99% of them. A broken resampler (e.g. always the same index, or the mean instead of the
  // median of a skewed draw) lands far outside this band.
  Rng data_rng(2024);
  int covered = 0;
  const int kSets = 400;
  BootstrapWorkspace ws;
  for (int s = 0; s < kSets; ++s) {
    const std::vector<double> xs = NormalSample(&data_rng, 30, 10.0, 2.0);
    const Interval ci = *BootstrapMedianCI(xs, 0.95, 2000, 1000 + s, &ws);
    if (ci.low <= 10.0 && 10.0 <= ci.high) ++covered;
  }
  const double coverage = static_cast<double>(covered) / kSets;
  EXPECT_GE(coverage, 0.90);
  EXPECT_LE(coverage, 0.99);
}

TEST(Bootstrap, WiderForLowerConfidenceNever) {
  Rng data_rng(7);
  const std::vector<double> xs = NormalSample(&data_rng, 31, 0.0, 1.0);
  const Interval ci95 = *BootstrapMedianCI(xs, 0.95, 2000, 5);
  const Interval ci50 = *BootstrapMedianCI(xs, 0.50, 2000, 5);
  EXPECT_LE(ci95.low, ci50.low);
  EXPECT_GE(ci95.high, ci50.high);
}

TEST(Bootstrap, EvenCountUsesMidpoints) {
  // Two distinct values, even n: resample medians are 1, 1.5 or 2; 1.5 must show up inside.
  const std::vector<double> xs = {1, 1, 2, 2};
  const Interval ci = *BootstrapMedianCI(xs, 0.5, 4000, 3);
  EXPECT_GE(ci.low, 1.0);
  EXPECT_LE(ci.high, 2.0);
  EXPECT_TRUE(ci.low == 1.5 || ci.high == 1.5 || (ci.low < 1.5 && ci.high > 1.5));
}

TEST(Bootstrap, DegenerateInputs) {
  const auto empty = BootstrapMedianCI({});
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  const Interval one = *BootstrapMedianCI({3.25});
  EXPECT_EQ(one.low, 3.25);
  EXPECT_EQ(one.high, 3.25);
  const Interval same = *BootstrapMedianCI({2.0, 2.0, 2.0, 2.0});
  EXPECT_EQ(same.low, 2.0);
  EXPECT_EQ(same.high, 2.0);
  EXPECT_FALSE(BootstrapMedianCI({1.0, std::numeric_limits<double>::quiet_NaN()}).ok());
  EXPECT_FALSE(BootstrapMedianCI({1.0, 2.0}, 1.0).ok());
  EXPECT_FALSE(BootstrapMedianCI({1.0, 2.0}, 0.0).ok());
  EXPECT_FALSE(BootstrapMedianCI({1.0, 2.0}, 0.95, 0).ok());
}

TEST(Bootstrap, RelativeHalfWidth) {
  EXPECT_DOUBLE_EQ(RelativeHalfWidth({9.0, 11.0}, 10.0), 0.1);
  EXPECT_DOUBLE_EQ(RelativeHalfWidth({-11.0, -9.0}, -10.0), 0.1);
  EXPECT_EQ(RelativeHalfWidth({0.0, 0.0}, 0.0), 0.0);
  EXPECT_EQ(RelativeHalfWidth({-1.0, 1.0}, 0.0), std::numeric_limits<double>::infinity());
}

TEST(Rng, UniformIndexIsUniformAndInRange) {
  Rng rng(99);
  std::vector<int> counts(7, 0);
  const int kDraws = 70000;
  for (int i = 0; i < kDraws; ++i) {
    const uint32_t k = rng.UniformIndex(7);
    ASSERT_LT(k, 7u);
    ++counts[k];
  }
  // Each bin expects 10000 with sd ~93; 600 is > 6 sd.
  for (int c : counts) EXPECT_NEAR(c, 10000, 600);
  for (int i = 0; i < 1000; ++i) {
    const double u = rng.Uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace fleetsweep::stats
