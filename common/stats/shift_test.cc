// Hodges-Lehmann shift: recovery of a known shift, exact U distribution, edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/stats/stats.h"

namespace fleetsweep::stats {
namespace {

std::vector<double> Noise(Rng* rng, size_t n, double center) {
  std::vector<double> xs(n);
  for (double& x : xs) x = center + NormalQuantile(0.001 + 0.998 * rng->Uniform01());
  return xs;
}

TEST(HodgesLehmann, RecoversShiftWithinInterval) {
  Rng rng(17);
  const std::vector<double> y = Noise(&rng, 30, 100.0);
  const std::vector<double> x = Noise(&rng, 30, 103.0);  // true shift +3
  const auto r = HodgesLehmannShift(x, y);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->exact);
  EXPECT_NEAR(r->estimate, 3.0, 0.8);
  EXPECT_LE(r->ci.low, 3.0);
  EXPECT_GE(r->ci.high, 3.0);
  EXPECT_GT(r->ci.low, 0.0) << "a 3-sigma shift with 30 samples each must be significant";
  EXPECT_GE(r->achieved_confidence, 0.95);
  EXPECT_LT(r->achieved_confidence, 0.96);
}

TEST(HodgesLehmann, ExactShiftOfIdenticalShapes) {
  // y is x moved by -2.5 exactly: every pairwise median lands on the shift.
  const std::vector<double> x = {1, 4, 2, 8, 5, 7};
  std::vector<double> y;
  for (double v : x) y.push_back(v - 2.5);
  EXPECT_DOUBLE_EQ(HodgesLehmannShift(x, y)->estimate, 2.5);
}

TEST(HodgesLehmann, LargeSamplesUseNormalApproximation) {
  Rng rng(23);
  const std::vector<double> y = Noise(&rng, 80, 0.0);
  const std::vector<double> x = Noise(&rng, 60, -1.0);
  const auto r = HodgesLehmannShift(x, y, 0.9);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->exact);
  EXPECT_LE(r->ci.low, -1.0 + 0.6);
  EXPECT_LT(r->ci.high, 0.0);
  EXPECT_NEAR(r->achieved_confidence, 0.9, 0.01);
}

TEST(HodgesLehmann, CoverageNearNominal) {
  // 200 pairs of samples (n = 12, m = 10) with true shift 1: the exact 90% interval covers it in
  // 85-96% of cases.
  Rng rng(31);
  int covered = 0;
  for (int s = 0; s < 200; ++s) {
    const auto r = HodgesLehmannShift(Noise(&rng, 12, 1.0), Noise(&rng, 10, 0.0), 0.9);
    ASSERT_TRUE(r.ok());
    if (r->ci.low <= 1.0 && 1.0 <= r->ci.high) ++covered;
  }
  EXPECT_GE(covered, 170);
  EXPECT_LE(covered, 192);
}

TEST(HodgesLehmann, TinySamplesReportLowerAchievedConfidence) {
  const auto r = HodgesLehmannShift({1.0, 2.0}, {3.0});
  ASSERT_TRUE(r.ok());
  EXPECT_LT(r->achieved_confidence, 0.95);  // P(U = 0) = 1/3: no 95% interval exists
  EXPECT_EQ(r->ci.low, -2.0);
  EXPECT_EQ(r->ci.high, -1.0);
}

TEST(HodgesLehmann, RejectsBadInput) {
  EXPECT_FALSE(HodgesLehmannShift({}, {1.0}).ok());
  EXPECT_FALSE(HodgesLehmannShift({1.0}, {std::nan("")}).ok());
  EXPECT_FALSE(HodgesLehmannShift({1.0}, {2.0}, 1.0).ok());
}

TEST(MannWhitneyExactCdf, SmallCasesByHand) {
  // n = m = 2: orderings of xxyy have U in {0,1,2,2,3,4} -> counts 1,1,2,1,1 out of 6.
  const auto cdf = MannWhitneyExactCdf(2, 2);
  ASSERT_EQ(cdf.size(), 5u);
  const double want[] = {1.0 / 6, 2.0 / 6, 4.0 / 6, 5.0 / 6, 1.0};
  for (int u = 0; u < 5; ++u) EXPECT_NEAR(cdf[u], want[u], 1e-15);
  // Symmetry P(U <= u) = P(U >= nm - u) = 1 - P(U <= nm - u - 1), also for unequal sizes.
  const auto big = MannWhitneyExactCdf(7, 11);
  for (int u = 0; u < 76; ++u) EXPECT_NEAR(big[u], 1.0 - big[76 - u], 1e-13);
  EXPECT_TRUE(MannWhitneyExactCdf(0, 3).empty());
}

}  // namespace
}  // namespace fleetsweep::stats
