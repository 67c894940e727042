// Behaviour of the execution-level statistics: the hierarchical bootstrap, the t tests on
// per-execution summaries and the within-block permutation test (SciPy agreement is in
// vectors_test.cc).
#include "common/stats/hierarchical.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "common/stats/block_permutation.h"
#include "common/stats/bootstrap.h"
#include "common/stats/descriptive.h"
#include "common/stats/distributions.h"
#include "common/stats/packed_indices.h"
#include "common/stats/rng.h"
#include "common/stats/t_test.h"

namespace fleetsweep::stats {
namespace {

double Gauss(Rng* rng) {  // Box-Muller, enough for simulations
  const double u = 1.0 - rng->Uniform01(), v = rng->Uniform01();
  return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
}

// k executions of m samples: value = 100 * (1 + sd_exec * e + sd_sample * s).
std::vector<std::vector<double>> Executions(Rng* rng, int k, int m, double sd_exec,
                                            double sd_sample) {
  std::vector<std::vector<double>> out(k);
  for (auto& ex : out) {
    const double shift = sd_exec * Gauss(rng);
    for (int j = 0; j < m; ++j) ex.push_back(100 * (1 + shift + sd_sample * Gauss(rng)));
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
        const double x = 10 + 3 * Gauss(&rng);
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
          const double x = 10 + 3 * Gauss(&rng);
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
    for (int i = 0; i < 4; ++i) x.push_back(Gauss(&rng));
    for (int i = 0; i < 6; ++i) y.push_back(Gauss(&rng));
    const auto r = WelchTTest(x, y);
    ASSERT_TRUE(r.ok());
    rejections += r->p_value <= 0.05;
  }
  EXPECT_LE(rejections, trials * 65 / 1000);
  EXPECT_GE(rejections, trials * 25 / 1000);
}

TEST(BlockPermutation, TooFewArrangementsGiveLargeMinP) {
  // One block of 2 x 3 executions: 20 arrangements; perfect separation still gives p = 0.1.
  const auto r = BlockPermutationTest(
      {{{0, 1.0}, {0, 1.1}, {0, 0.9}, {1, 2.0}, {1, 2.1}, {1, 1.9}}}, 2, 100, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->exact);
  EXPECT_DOUBLE_EQ(r->p_value, 0.1);
  EXPECT_DOUBLE_EQ(r->min_p, 0.1);
  EXPECT_DOUBLE_EQ(r->arrangements, 20);
}

TEST(BlockPermutation, RejectsBadInputAndSkipsOneLevelBlocks) {
  EXPECT_FALSE(BlockPermutationTest({{{0, 1.0}, {1, 2.0}}}, 1).ok());
  EXPECT_FALSE(BlockPermutationTest({{{0, 1.0}, {2, 2.0}}}, 2).ok());
  EXPECT_FALSE(BlockPermutationTest({{{0, 1.0}, {1, NAN}}}, 2).ok());
  const auto r = BlockPermutationTest({{{0, 1.0}, {0, 5.0}}}, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->p_value, 1.0);
  EXPECT_EQ(r->arrangements, 0);
}

// 3 blocks with very different levels of their own (the other parameters' effects), `levels`
// levels of a parameter that does nothing, 3 executions each with execution-level noise.
std::vector<std::vector<std::pair<int, double>>> NullBlocks(Rng* rng, int levels) {
  std::vector<std::vector<std::pair<int, double>>> blocks(3);
  for (int b = 0; b < 3; ++b) {
    for (int level = 0; level < levels; ++level) {
      for (int e = 0; e < 3; ++e) blocks[b].push_back({level, b * 10.0 + 0.05 * Gauss(rng)});
    }
  }
  return blocks;
}

// Null calibration: rejections at 5% stay near 5%.
TEST(BlockPermutation, HoldsLevelUnderNull) {
  Rng rng(3);
  int rejections = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    const auto r = BlockPermutationTest(NullBlocks(&rng, 2), 2, 500, 100 + t);
    ASSERT_TRUE(r.ok());
    rejections += r->p_value <= 0.05;
  }
  EXPECT_LE(rejections, trials * 8 / 100);
}

// Sequential Monte Carlo (Besag-Clifford, stop after 20 hits): the level holds under the null
// with Monte Carlo forced (exact_limit 0), and a parameter that does nothing stops early.
TEST(BlockPermutation, SequentialHoldsLevelUnderNullAndStopsEarly) {
  Rng rng(5);
  int rejections = 0;
  int64_t draws = 0;
  const int trials = 1000;
  for (int t = 0; t < trials; ++t) {
    const auto r = BlockPermutationTest(NullBlocks(&rng, 3), 3, 500, 200 + t, 0, 20);
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(r->exact);
    EXPECT_EQ(r->min_p, 1.0 / 501);
    rejections += r->p_value <= 0.05;
    draws += r->resamples;
  }
  // 5% of 1000 is 50 (binomial sd ~7): more than 70 would be a broken level.
  EXPECT_LE(rejections, 70);
  EXPECT_GE(rejections, 25) << "far below the level: the test lost its power";
  EXPECT_LT(draws, trials * 150) << "under the null most runs stop long before 500 draws";
}

// A consistent 3% effect in 4 blocks: found by the full Monte Carlo and by the sequential one,
// which never stops early when hits are rare.
TEST(BlockPermutation, FindsAConsistentEffectAlsoSequentially) {
  Rng rng(4);
  std::vector<std::vector<std::pair<int, double>>> blocks(4);
  for (int b = 0; b < 4; ++b) {
    for (int level = 0; level < 2; ++level) {
      for (int e = 0; e < 3; ++e)
        blocks[b].push_back({level, b + 0.03 * level + 0.01 * Gauss(&rng)});
    }
  }
  const auto r = BlockPermutationTest(blocks, 2, 2000, 9);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->exact);
  EXPECT_LT(r->p_value, 0.01);
  const auto seq = BlockPermutationTest(blocks, 2, 2000, 9, kBlockPermutationExactLimit, 20);
  ASSERT_TRUE(seq.ok());
  EXPECT_FALSE(seq->stopped_early);
  EXPECT_EQ(seq->resamples, 2000);
  EXPECT_EQ(seq->p_value, r->p_value);  // the same draws, all of them
  EXPECT_FALSE(BlockPermutationTest(blocks, 2, 2000, 9, kBlockPermutationExactLimit, -1).ok());
}

// Units of one observation each are the observation-level test: the same draws, sums and p, bit
// for bit, exact and Monte Carlo, with and without the sequential stop.
TEST(BlockPermutationUnits, OneObservationPerUnitIsTheObservationLevelTest) {
  Rng rng(11);
  int exact = 0, drawn = 0, stopped = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int levels = 2 + trial % 3;
    std::vector<std::vector<std::pair<int, double>>> pairs(1 + trial % 4);
    std::vector<std::vector<PermutationUnit>> units(pairs.size());
    for (size_t b = 0; b < pairs.size(); ++b) {
      const int m = 2 + static_cast<int>((trial + b) % 6);
      for (int i = 0; i < m; ++i) {
        const int level = i % levels;
        const double x = static_cast<double>(b) + 0.3 * level * (trial % 2) + Gauss(&rng);
        pairs[b].emplace_back(level, x);
        units[b].push_back({level, 1, x});
      }
    }
    for (double limit : {kBlockPermutationExactLimit, 0.0}) {
      for (int stop : {0, 5}) {
        const auto want = BlockPermutationTest(pairs, levels, 300, 40 + trial, limit, stop);
        const auto got = BlockPermutationTestOfUnits(units, levels, 300, 40 + trial, limit, stop);
        ASSERT_TRUE(want.ok() && got.ok());
        EXPECT_EQ(got->statistic, want->statistic);
        EXPECT_EQ(got->p_value, want->p_value);
        EXPECT_EQ(got->min_p, want->min_p);
        EXPECT_EQ(got->exact, want->exact);
        EXPECT_EQ(got->arrangements, want->arrangements);
        EXPECT_EQ(got->resamples, want->resamples);
        EXPECT_EQ(got->stopped_early, want->stopped_early);
        exact += want->exact;
        drawn += !want->exact;
        stopped += want->stopped_early;
      }
    }
  }
  EXPECT_GT(exact, 0);
  EXPECT_GT(drawn, 0);
  EXPECT_GT(stopped, 0);
}

// S of one assignment of labels to units, from scratch: block-centred values (the block mean over
// observations), per-level sums and counts of the assignment; blocks of one level left out.
double BruteStatistic(const std::vector<std::vector<PermutationUnit>>& blocks,
                      const std::vector<std::vector<int>>& labels, int levels) {
  std::vector<double> sum(levels, 0.0), count(levels, 0.0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (std::set<int>(labels[b].begin(), labels[b].end()).size() < 2) continue;
    double total = 0, n = 0;
    for (const auto& u : blocks[b]) {
      total += u.value_sum;
      n += u.observations;
    }
    for (size_t i = 0; i < blocks[b].size(); ++i) {
      const auto& u = blocks[b][i];
      sum[labels[b][i]] += u.value_sum - u.observations * (total / n);
      count[labels[b][i]] += u.observations;
    }
  }
  double s = 0;
  for (int l = 0; l < levels; ++l) {
    if (count[l] > 0) s += sum[l] * sum[l] / count[l];
  }
  return s;
}

// Units of unequal counts (n_l changes with the re-dealing): the exact enumeration of distinct
// re-dealings gives the p, min_p and arrangements of a brute force over every permutation of
// every block's units (each distinct re-dealing appears equally often), and the Monte Carlo
// agrees with it within its noise.
TEST(BlockPermutationUnits, ExactWithUnequalCountsEqualsBruteForce) {
  const std::vector<std::vector<PermutationUnit>> blocks = {
      {{0, 2, 3.0}, {1, 1, 4.5}, {0, 3, 2.0}, {2, 1, 1.0}},
      {{0, 1, 0.5}, {1, 4, 6.0}, {1, 2, 1.5}},
      {{2, 2, 3.0}, {2, 1, 2.0}},  // one level: skipped
  };
  const int levels = 3;
  std::vector<std::vector<int>> labels;
  for (const auto& b : blocks) {
    labels.emplace_back();
    for (const auto& u : b) labels.back().push_back(u.level);
  }
  const double observed = BruteStatistic(blocks, labels, levels);
  std::vector<double> all;
  std::set<std::vector<std::vector<int>>> distinct;
  std::vector<int> p0 = {0, 1, 2, 3}, p1 = {0, 1, 2};
  do {
    do {
      std::vector<std::vector<int>> dealt = labels;
      for (size_t i = 0; i < p0.size(); ++i) dealt[0][i] = labels[0][p0[i]];
      for (size_t i = 0; i < p1.size(); ++i) dealt[1][i] = labels[1][p1[i]];
      all.push_back(BruteStatistic(blocks, dealt, levels));
      distinct.insert(dealt);
    } while (std::next_permutation(p1.begin(), p1.end()));
  } while (std::next_permutation(p0.begin(), p0.end()));
  const double best = *std::max_element(all.begin(), all.end());
  double hits = 0, at_best = 0;
  for (double s : all) {
    hits += s >= observed * (1 - 1e-9);
    at_best += s >= best * (1 - 1e-9);
  }
  const double n_all = static_cast<double>(all.size());
  ASSERT_EQ(distinct.size(), 36u);  // 4! / 2! x 3! / 2!

  const auto r = BlockPermutationTestOfUnits(blocks, levels);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->exact);
  EXPECT_NEAR(r->statistic, observed, 1e-12 * observed);
  EXPECT_DOUBLE_EQ(r->arrangements, static_cast<double>(distinct.size()));
  EXPECT_DOUBLE_EQ(r->p_value, hits / n_all);
  EXPECT_DOUBLE_EQ(r->min_p, at_best / n_all);
  EXPECT_GT(hits, 1.0) << "a case where the observed S is not the largest";

  const int draws = 20000;
  const auto mc = BlockPermutationTestOfUnits(blocks, levels, draws, 7, 0);
  ASSERT_TRUE(mc.ok());
  EXPECT_FALSE(mc->exact);
  const double p = hits / n_all, se = std::sqrt(p * (1 - p) / draws);
  EXPECT_NEAR(mc->p_value, p, 4 * se + 1.0 / draws);
  EXPECT_FALSE(BlockPermutationTestOfUnits({{{0, 0, 1.0}, {1, 1, 2.0}}}, 2).ok());
}

// 12 blocks x 3 levels of a parameter that does nothing; each configuration has 2-6 executions
// that share a random offset of its own (sd = the execution noise: correlated executions).
void CorrelatedNullDesign(Rng* rng, std::vector<std::vector<PermutationUnit>>* units,
                          std::vector<std::vector<std::pair<int, double>>>* executions) {
  units->assign(12, {});
  executions->assign(12, {});
  for (int b = 0; b < 12; ++b) {
    for (int level = 0; level < 3; ++level) {
      const int n = 2 + static_cast<int>(rng->UniformIndex(5));
      const double offset = b + Gauss(rng);
      PermutationUnit u{level, n, 0.0};
      for (int e = 0; e < n; ++e) {
        const double x = offset + Gauss(rng);
        u.value_sum += x;
        (*executions)[b].emplace_back(level, x);
      }
      (*units)[b].push_back(u);
    }
  }
}

// Re-dealing configurations holds the 5% level when a configuration's executions are correlated
// (1000 designs: binomial sd ~7 around 50); re-dealing executions does not (they are not
// exchangeable: the configuration's offset looks like an effect of its level).
TEST(BlockPermutationUnits, ConfigurationLevelHoldsItsLevelWithCorrelatedExecutions) {
  Rng rng(21);
  int by_configuration = 0, by_execution = 0;
  const int trials = 1000;
  for (int t = 0; t < trials; ++t) {
    std::vector<std::vector<PermutationUnit>> units;
    std::vector<std::vector<std::pair<int, double>>> executions;
    CorrelatedNullDesign(&rng, &units, &executions);
    const auto c =
        BlockPermutationTestOfUnits(units, 3, 500, 300 + t, kBlockPermutationExactLimit, 20);
    const auto e =
        BlockPermutationTest(executions, 3, 500, 300 + t, kBlockPermutationExactLimit, 20);
    ASSERT_TRUE(c.ok() && e.ok());
    ASSERT_FALSE(c->exact);
    by_configuration += c->p_value <= 0.05;
    by_execution += e->p_value <= 0.05;
  }
  EXPECT_LE(by_configuration, 75);
  EXPECT_GE(by_configuration, 25) << "far below the level: the test lost its power";
  EXPECT_GE(by_execution, 150) << "the execution-level test should be anti-conservative here";
}

// Independent executions and many blocks (30 x 2 levels x 5 executions, a 0.25 sd difference):
// re-dealing configurations finds the difference about as often as re-dealing executions.
TEST(BlockPermutationUnits, ConfigurationLevelKeepsPowerWithManyBlocks) {
  Rng rng(31);
  int by_configuration = 0, by_execution = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    std::vector<std::vector<PermutationUnit>> units(30);
    std::vector<std::vector<std::pair<int, double>>> executions(30);
    for (int b = 0; b < 30; ++b) {
      for (int level = 0; level < 2; ++level) {
        PermutationUnit u{level, 5, 0.0};
        for (int e = 0; e < 5; ++e) {
          const double x = b + 0.25 * level + Gauss(&rng);
          u.value_sum += x;
          executions[b].emplace_back(level, x);
        }
        units[b].push_back(u);
      }
    }
    const auto c =
        BlockPermutationTestOfUnits(units, 2, 500, 900 + t, kBlockPermutationExactLimit, 100);
    const auto e =
        BlockPermutationTest(executions, 2, 500, 900 + t, kBlockPermutationExactLimit, 100);
    ASSERT_TRUE(c.ok() && e.ok());
    by_configuration += c->p_value <= 0.05;
    by_execution += e->p_value <= 0.05;
  }
  EXPECT_GE(by_execution, trials / 3) << "the design should find the difference often";
  EXPECT_LE(std::abs(by_configuration - by_execution), trials / 10);
}

}  // namespace
}  // namespace fleetsweep::stats
