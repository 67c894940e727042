// Hand-checked values, error handling and edge cases of descriptive.h, rank_tests.h and
// distributions.h (the SciPy comparisons are in vectors_test.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/stats/stats.h"

namespace fleetsweep::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Descriptive, HandCheckedValues) {
  const std::vector<double> x = {7, 1, 3, 5};
  EXPECT_EQ(*Median(x), 4.0);
  EXPECT_EQ(*Quantile(x, 0.0), 1.0);
  EXPECT_EQ(*Quantile(x, 1.0), 7.0);
  EXPECT_DOUBLE_EQ(*Quantile(x, 0.25), 2.5);  // h = 0.75: 1 + 0.75 * 2
  EXPECT_EQ(*Mad(x), 2.0);                    // |x - 4| = 3,3,1,1
  EXPECT_NEAR(*Mad(x, true), 2.0 * 1.482602218505602, 1e-12);
  EXPECT_EQ(*Mean(x), 4.0);
  EXPECT_DOUBLE_EQ(*StdDev(x), std::sqrt(20.0 / 3));
  EXPECT_DOUBLE_EQ(*StdDev(x, 0), std::sqrt(5.0));
  EXPECT_EQ(x, (std::vector<double>{7, 1, 3, 5})) << "input must not be reordered";
}

TEST(Descriptive, SingleValue) {
  const std::vector<double> x = {2.5};
  EXPECT_EQ(*Median(x), 2.5);
  EXPECT_EQ(*Quantile(x, 0.3), 2.5);
  EXPECT_EQ(*Mad(x), 0.0);
  const Summary s = *Summarize(x);
  EXPECT_EQ(s.stddev, 0.0);
  EXPECT_EQ(s.min, 2.5);
  EXPECT_EQ(s.max, 2.5);
  EXPECT_FALSE(StdDev(x).ok());  // ddof = 1 needs two values
}

TEST(Descriptive, RejectsBadInput) {
  const std::vector<double> empty;
  EXPECT_EQ(Median(empty).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(Mean(empty).ok());
  EXPECT_FALSE(Summarize(empty).ok());
  const auto nan = Median({1.0, kNaN, 3.0});
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.status().message().find("index 1"), std::string::npos) << nan.status().message();
  EXPECT_FALSE(Mad({1.0, kInf}).ok());
  EXPECT_FALSE(Quantile({1.0, 2.0}, 1.5).ok());
  EXPECT_FALSE(Quantile({1.0, 2.0}, -0.1).ok());
  EXPECT_FALSE(Quantile({1.0, 2.0}, kNaN).ok());
  EXPECT_FALSE(StdDev({1.0, 2.0}, -1).ok());
}

// MedianOf: the unchecked median the scheduler and the aggregator share (moved from
// coordinator/robust.h): 0 for an empty sample, the middle pair's mean for an even count, and
// the caller's vector keeps its order.
TEST(Descriptive, MedianOfCopiesAndTakesEmptyAsZero) {
  EXPECT_EQ(MedianOf({}), 0.0);
  const std::vector<double> odd = {5.0, 1.0, 3.0};
  EXPECT_EQ(MedianOf(odd), 3.0);
  EXPECT_EQ(odd, (std::vector<double>{5.0, 1.0, 3.0}));
  EXPECT_EQ(MedianOf({4.0, 1.0, 2.0, 10.0}), 3.0);
}

TEST(RankTests, MidRanksAndTieTerm) {
  const Ranking r = MidRanks({10, 20, 10, 30, 10});
  EXPECT_EQ(r.ranks, (std::vector<double>{2, 4, 2, 5, 2}));
  EXPECT_EQ(r.tie_term, 24.0);  // one group of 3: 27 - 3
}

TEST(RankTests, MannWhitneySeparatedSamples) {
  const auto r = MannWhitneyU({1, 2, 3, 4, 5, 6, 7, 8}, {11, 12, 13, 14, 15, 16, 17, 18});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->u, 0.0);  // no x exceeds any y
  EXPECT_LT(r->p_value, 0.001);
  const auto swapped = MannWhitneyU({11, 12, 13, 14, 15, 16, 17, 18}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(swapped->u, 64.0);
  EXPECT_DOUBLE_EQ(swapped->p_value, r->p_value);
}

TEST(RankTests, AllTiedGivesNoEvidence) {
  const auto mw = MannWhitneyU({3, 3, 3}, {3, 3});
  ASSERT_TRUE(mw.ok());
  EXPECT_EQ(mw->p_value, 1.0);
  const auto kw = KruskalWallis({{2, 2}, {2, 2, 2}, {2}});
  ASSERT_TRUE(kw.ok());
  EXPECT_EQ(kw->h, 0.0);
  EXPECT_EQ(kw->p_value, 1.0);
  EXPECT_EQ(kw->df, 2);
}

TEST(RankTests, RejectsBadInput) {
  EXPECT_FALSE(MannWhitneyU({}, {1.0}).ok());
  EXPECT_FALSE(MannWhitneyU({1.0}, {kNaN}).ok());
  EXPECT_FALSE(KruskalWallis({{1.0, 2.0}}).ok());
  const auto empty_group = KruskalWallis({{1.0}, {}, {3.0}});
  ASSERT_FALSE(empty_group.ok());
  EXPECT_NE(empty_group.status().message().find("group 1"), std::string::npos);
}

TEST(RankTests, KruskalEffectSizeSeparatedGroups) {
  // Perfectly separated groups: epsilon^2 near its maximum, tiny p.
  std::vector<std::vector<double>> groups(3);
  for (int g = 0; g < 3; ++g) {
    for (int i = 0; i < 10; ++i) groups[g].push_back(100.0 * g + i);
  }
  const auto r = KruskalWallis(groups);
  ASSERT_TRUE(r.ok());
  EXPECT_LT(r->p_value, 1e-5);
  EXPECT_GT(r->epsilon_squared, 0.85);
  EXPECT_LE(r->epsilon_squared, 1.0);
}

TEST(Distributions, DomainEdges) {
  EXPECT_EQ(NormalQuantile(0.0), -kInf);
  EXPECT_EQ(NormalQuantile(1.0), kInf);
  EXPECT_EQ(NormalQuantile(0.5), 0.0);
  EXPECT_TRUE(std::isnan(NormalQuantile(1.5)));
  EXPECT_TRUE(std::isnan(NormalQuantile(kNaN)));
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-14);
  for (double p = 0.001; p < 1; p += 0.0137) {
    EXPECT_NEAR(NormalCdf(NormalQuantile(p)), p, 1e-15 + 1e-14 * p);
  }
  EXPECT_EQ(ChiSquareSf(0.0, 3), 1.0);
  EXPECT_EQ(ChiSquareSf(-1.0, 3), 1.0);
  EXPECT_TRUE(std::isnan(ChiSquareSf(1.0, 0)));
  EXPECT_TRUE(std::isnan(RegularizedGammaQ(-1.0, 1.0)));
  EXPECT_EQ(RegularizedGammaQ(2.0, kInf), 0.0);
  // chi2 with 2 df is exponential: sf(x) = exp(-x/2).
  for (double x : {0.1, 1.0, 5.0, 40.0, 300.0}) {
    EXPECT_NEAR(ChiSquareSf(x, 2) / std::exp(-x / 2), 1.0, 1e-13) << x;
  }
}

}  // namespace
}  // namespace fleetsweep::stats
