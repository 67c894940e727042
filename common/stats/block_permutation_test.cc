// Behaviour of the within-block permutation test (block_permutation.h): exact and Monte Carlo p
// values, bad input, its level under the null and its power, for single observations and for
// whole units re-dealt (SciPy agreement is in vectors_test.cc).
#include "common/stats/block_permutation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "common/stats/rng.h"

namespace fleetsweep::stats {
namespace {

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
      for (int e = 0; e < 3; ++e)
        blocks[b].push_back({level, b * 10.0 + 0.05 * rng->StandardNormal()});
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
        blocks[b].push_back({level, b + 0.03 * level + 0.01 * rng.StandardNormal()});
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
        const double x = static_cast<double>(b) + 0.3 * level * (trial % 2) + rng.StandardNormal();
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
      const double offset = b + rng->StandardNormal();
      PermutationUnit u{level, n, 0.0};
      for (int e = 0; e < n; ++e) {
        const double x = offset + rng->StandardNormal();
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
          const double x = b + 0.25 * level + rng.StandardNormal();
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
