// Behaviour of the execution-level statistics: the hierarchical bootstrap and the t tests on
// per-execution summaries (the within-block permutation test: block_permutation_test.cc; SciPy
// agreement is in vectors_test.cc).
#include "common/stats/hierarchical.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/stats/bootstrap.h"
#include "common/stats/descriptive.h"
#include "common/stats/distributions.h"
#include "common/stats/packed_indices.h"
#include "common/stats/rng.h"
#include "common/stats/t_test.h"

namespace fleetsweep::stats {
namespace {

// k executions of m samples: value = 100 * (1 + sd_exec * e + sd_sample * s).
std::vector<std::vector<double>> Executions(Rng* rng, int k, int m, double sd_exec,
                                            double sd_sample) {
  std::vector<std::vector<double>> out(k);
  for (auto& ex : out) {
    const double shift = sd_exec * rng->StandardNormal();
    for (int j = 0; j < m; ++j) ex.push_back(100 * (1 + shift + sd_sample * rng->StandardNormal()));
  }
  return out;
}

// The two-level draw as the header states it: decode every drawn index (the combined one by
// division), copy every drawn sample, then take the median of the copy (MedianInPlace). The
// counting implementation must give the same medians exactly.
std::vector<double> ReferenceMedians(const std::vector<std::vector<double>>& executions,
                                     int resamples, uint64_t seed) {
  Rng rng(seed);
  const uint32_t k = static_cast<uint32_t>(executions.size());
  const uint32_t n = static_cast<uint32_t>(executions[0].size());
  bool equal = true;
  for (const auto& ex : executions) equal = equal && ex.size() == n;
  double combos = std::pow(static_cast<double>(n), static_cast<double>(n));
  const bool combined = equal && k * combos <= 65536;
  std::vector<double> pooled, medians;
  for (int b = 0; b < resamples; ++b) {
    pooled.clear();
    std::vector<uint32_t> drawn(k);
    if (combined) {
      const uint32_t c = static_cast<uint32_t>(combos);
      DrawPackedInto(PlanPacked(std::vector<uint32_t>(k, k * c)), &rng, drawn.data());
      for (uint32_t u : drawn) {
        std::vector<uint32_t> digits(n);
        uint32_t rest = u % c;
        for (uint32_t j = n; j-- > 0; rest /= n) digits[j] = rest % n;
        for (uint32_t j : digits) pooled.push_back(executions[u / c][j]);
      }
    } else {
      DrawPackedInto(PlanPacked(std::vector<uint32_t>(k, k)), &rng, drawn.data());
      std::vector<uint32_t> ranges;
      for (uint32_t e : drawn)
        ranges.insert(ranges.end(), executions[e].size(), executions[e].size());
      std::vector<uint32_t> samples(ranges.size());
      DrawPackedInto(PlanPacked(ranges), &rng, samples.data());
      size_t i = 0;
      for (uint32_t e : drawn) {
        for (size_t j = 0; j < executions[e].size(); ++j)
          pooled.push_back(executions[e][samples[i++]]);
      }
    }
    medians.push_back(MedianInPlace(&pooled));
  }
  return medians;
}

TEST(HierarchicalBootstrap, CountingEqualsCopyAndSelect) {
  Rng rng(99);
  int even_rounds = 0;
  for (int trial = 0; trial < 60; ++trial) {
    // Executions of different sizes (odd and even totals), ties from rounding, one value often.
    // Odd trials: executions of one size (the combined draw while k * n^n <= 65536).
    const int k = 1 + static_cast<int>(rng.UniformIndex(trial % 4 == 1 ? 40 : 12));
    const int same_n = 1 + static_cast<int>(rng.UniformIndex(trial % 4 == 3 ? 6 : 4));
    std::vector<std::vector<double>> execs(k);
    for (auto& ex : execs) {
      const int n = trial % 2 == 1 ? same_n : 1 + static_cast<int>(rng.UniformIndex(7));
      for (int j = 0; j < n; ++j) {
        const double x = 10 + 3 * rng.StandardNormal();
        ex.push_back(trial % 3 == 0 ? std::round(x) : x);
      }
    }
    const int resamples = 1 + static_cast<int>(rng.UniformIndex(300));
    auto got = HierarchicalBootstrapMedians(execs, resamples, trial);
    ASSERT_TRUE(got.ok());
    const std::vector<double> want = ReferenceMedians(execs, resamples, trial);
    ASSERT_EQ(got->size(), want.size());
    for (size_t b = 0; b < want.size(); ++b) {
      ASSERT_EQ((*got)[b], want[b]) << "trial " << trial << " round " << b;
    }
    size_t total = 0;
    for (const auto& ex : execs) total += ex.size();
    if (total % 2 == 0) ++even_rounds;
  }
  EXPECT_GT(even_rounds, 5);
}

// Shapes around the cumulative-rows path (combined draws of at most 255 values a round, rows
// under 256 KB) and its fallback to counting: the live aggregate's 30 x 3, exactly 255 and 256
// values a round, many ties, one sample per execution. Every one must equal copy-and-select.
TEST(HierarchicalBootstrap, RowsAndCountingEqualCopyAndSelect) {
  Rng rng(7);
  const std::vector<std::pair<int, int>> shapes = {{30, 3},  {85, 3},  {86, 3},  {63, 4}, {16, 4},
                                                   {200, 1}, {255, 1}, {256, 1}, {3, 5},  {2, 2}};
  for (const auto& [k, n] : shapes) {
    for (int ties = 0; ties < 2; ++ties) {
      std::vector<std::vector<double>> execs(k);
      for (auto& ex : execs) {
        for (int j = 0; j < n; ++j) {
          const double x = 10 + 3 * rng.StandardNormal();
          ex.push_back(ties ? std::round(x) : x);
        }
      }
      const uint64_t seed = 1000 + k * 10 + n + ties;
      auto got = HierarchicalBootstrapMedians(execs, 257, seed);
      ASSERT_TRUE(got.ok());
      const std::vector<double> want = ReferenceMedians(execs, 257, seed);
      ASSERT_EQ(*got, want) << "k " << k << " n " << n << " ties " << ties;
    }
  }
}

// Pools whose values all have the same bits take a shortcut (no draws); it must give exactly
// what the draws give, also where it must not apply: values so large that the mean of the two
// middle values overflows.
TEST(HierarchicalBootstrap, ConstantPoolsEqualCopyAndSelect) {
  const double huge = std::numeric_limits<double>::max() * 0.75;
  const std::vector<std::vector<std::vector<double>>> cases = {
      {{4.5, 4.5}, {4.5}, {4.5, 4.5, 4.5}},  // odd and even totals per round
      {{-2.0}, {-2.0, -2.0}},
      {{-0.0}, {-0.0, -0.0}},  // the sign survives
      {{huge, huge}, {huge}},
      {{7.0}},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      auto got = HierarchicalBootstrapMedians(cases[c], 101, seed);
      ASSERT_TRUE(got.ok());
      const std::vector<double> want = ReferenceMedians(cases[c], 101, seed);
      ASSERT_EQ(got->size(), want.size());
      for (size_t b = 0; b < want.size(); ++b) {
        ASSERT_EQ(std::signbit((*got)[b]), std::signbit(want[b])) << "case " << c << " round " << b;
        if (std::isnan(want[b])) {
          ASSERT_TRUE(std::isnan((*got)[b])) << "case " << c << " round " << b;
        } else {
          ASSERT_EQ((*got)[b], want[b]) << "case " << c << " round " << b;
        }
      }
    }
  }
  const auto point = HierarchicalBootstrapMedianCI({{4.5, 4.5}, {4.5}});
  ASSERT_TRUE(point.ok());
  EXPECT_EQ(point->low, 4.5);
  EXPECT_EQ(point->high, 4.5);
  // The one-value shortcut gives what resampling gives, and still refuses bad input.
  for (const std::vector<std::vector<double>>& same :
       {std::vector<std::vector<double>>{{2.25}}, {{-1.5, -1.5}, {-1.5}, {-1.5, -1.5}}}) {
    auto medians = HierarchicalBootstrapMedians(same, 300, 7);
    ASSERT_TRUE(medians.ok());
    const auto ci = HierarchicalBootstrapMedianCI(same, 0.95, 300, 7);
    ASSERT_TRUE(ci.ok());
    EXPECT_EQ(ci->low, QuantileInPlace(&*medians, 0.025));
    EXPECT_EQ(ci->high, QuantileInPlace(&*medians, 0.975));
  }
  EXPECT_FALSE(HierarchicalBootstrapMedianCI({{1.0}, {1.0}}, 1.5).ok());
  EXPECT_FALSE(HierarchicalBootstrapMedianCI({{1.0}, {1.0}}, 0.95, 0).ok());
  EXPECT_FALSE(HierarchicalBootstrapMedianCI({{1.0}, {}}).ok());
}

TEST(HierarchicalBootstrap, RejectsBadInput) {
  EXPECT_FALSE(HierarchicalBootstrapMedianCI({}).ok());
  EXPECT_FALSE(HierarchicalBootstrapMedianCI({{1.0}, {}}).ok());
  EXPECT_FALSE(HierarchicalBootstrapMedianCI({{1.0, NAN}}).ok());
  EXPECT_FALSE(HierarchicalBootstrapMedianCI({{1.0}}, 1.5).ok());
  EXPECT_FALSE(HierarchicalBootstrapMedianCI({{1.0}}, 0.95, 0).ok());
  const auto point = HierarchicalBootstrapMedianCI({{7.0}});
  ASSERT_TRUE(point.ok());
  EXPECT_EQ(point->low, 7.0);
  EXPECT_EQ(point->high, 7.0);
}

// The point of the execution as unit: when executions differ (shared process, clocks, node), the
// flat bootstrap over pooled samples covers the true median far too rarely; the hierarchical one
// keeps close to its nominal 95%.
TEST(HierarchicalBootstrap, CoversWhenExecutionsDifferAndFlatDoesNot) {
  Rng rng(2026);
  int flat_hits = 0, hier_hits = 0;
  const int trials = 200;
  for (int t = 0; t < trials; ++t) {
    const auto execs = Executions(&rng, 5, 10, 0.02, 0.005);
    std::vector<double> pooled;
    for (const auto& e : execs) pooled.insert(pooled.end(), e.begin(), e.end());
    const auto flat = BootstrapMedianCI(pooled, 0.95, 1000, t);
    const auto hier = HierarchicalBootstrapMedianCI(execs, 0.95, 1000, t);
    ASSERT_TRUE(flat.ok() && hier.ok());
    flat_hits += flat->low <= 100 && 100 <= flat->high;
    hier_hits += hier->low <= 100 && 100 <= hier->high;
  }
  EXPECT_LT(flat_hits, trials * 6 / 10);  // ~40% measured
  EXPECT_GT(hier_hits, trials * 8 / 10);  // ~88% measured (percentile bootstrap with k = 5)
}

TEST(HierarchicalBootstrap, SeedChangesDrawsNotTheInterval) {
  Rng rng(5);
  const auto execs = Executions(&rng, 4, 8, 0.01, 0.01);
  const auto a = HierarchicalBootstrapMedianCI(execs, 0.95, 2000, 1);
  const auto b = HierarchicalBootstrapMedianCI(execs, 0.95, 2000, 1);
  const auto c = HierarchicalBootstrapMedianCI(execs, 0.95, 2000, 2);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->low, b->low);
  EXPECT_EQ(a->high, b->high);
  EXPECT_NEAR(a->low, c->low, 0.01 * 100);
  const auto m1 = HierarchicalBootstrapMedians(execs, 50, 1);
  const auto m2 = HierarchicalBootstrapMedians(execs, 50, 2);
  ASSERT_TRUE(m1.ok() && m2.ok());
  EXPECT_NE(*m1, *m2);
}

TEST(TTests, ZeroVarianceAndTooFewValues) {
  const auto same = WelchTTest({1.0, 1.0}, {1.0, 1.0});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->p_value, 1.0);
  const auto differ = WelchTTest({1.0, 1.0}, {2.0, 2.0});
  ASSERT_TRUE(differ.ok());
  EXPECT_EQ(differ->p_value, 0.0);
  EXPECT_LT(differ->t, 0);
  EXPECT_FALSE(WelchTTest({1.0}, {1.0, 2.0}).ok());
  EXPECT_FALSE(PooledVarianceT({1.0}, {2.0}, -1.0, 3).ok());
  EXPECT_FALSE(PooledVarianceT({1.0}, {2.0}, 1.0, 0).ok());
  double df = -1;
  EXPECT_EQ(PooledVariance({{1.0}, {2.0}}, &df), 0.0);
  EXPECT_EQ(df, 0.0);
}

// Welch on per-execution means holds its level under execution-level noise (A/A).
TEST(TTests, WelchOnExecutionMeansHoldsLevel) {
  Rng rng(11);
  int rejections = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> x, y;
    for (int i = 0; i < 4; ++i) x.push_back(rng.StandardNormal());
    for (int i = 0; i < 6; ++i) y.push_back(rng.StandardNormal());
    const auto r = WelchTTest(x, y);
    ASSERT_TRUE(r.ok());
    rejections += r->p_value <= 0.05;
  }
  EXPECT_LE(rejections, trials * 65 / 1000);
  EXPECT_GE(rejections, trials * 25 / 1000);
}

}  // namespace
}  // namespace fleetsweep::stats
