// Packed draws: the grouping rule, the digits against floor(x * P / 2^64) computed directly, and
// uniformity and independence of the indices (the Python transcription is pinned in
// vectors_test.cc).
#include "common/stats/packed_indices.h"

#include <gtest/gtest.h>

#include <vector>

namespace fleetsweep::stats {
namespace {

TEST(PackedIndices, GroupsGreedilyUnderTheLimit) {
  const PackedPlan p = PlanPacked({30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 7});
  // 30^11 = 1.8e16 <= 2^56 = 7.2e16 < 30^12: eleven 30s, then 30 * 7.
  ASSERT_EQ(p.end, (std::vector<size_t>{11, 13}));
  EXPECT_EQ(p.product[1], 210u);
  uint64_t p11 = 1;
  for (int i = 0; i < 11; ++i) p11 *= 30;
  EXPECT_EQ(p.product[0], p11);
  const PackedPlan big = PlanPacked({4000000000u, 4000000000u, 1, 16777216});
  ASSERT_EQ(big.end, (std::vector<size_t>{1, 4}));  // (4e9)^2 > 2^56; 4e9 * 1 * 2^24 < 2^56
  EXPECT_TRUE(PlanPacked({}).end.empty());
}

// The successive multiplication gives the mixed-radix digits of U = floor(x * P / 2^64), for the
// first accepted output x of a fresh Rng with the same seed.
TEST(PackedIndices, DigitsAreThoseOfTheLemireIndex) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const std::vector<uint32_t> ranges = {3, 3, 30, 7, 1, 3, 1000};
    const PackedPlan plan = PlanPacked(ranges);
    ASSERT_EQ(plan.end.size(), 1u);
    Rng rng(seed);
    std::vector<uint32_t> got(ranges.size());
    DrawPackedInto(plan, &rng, got.data());
    Rng raw(seed);
    const uint64_t p = plan.product[0];
    uint64_t x = raw.Next();
    while (x * p < (0 - p) % p) x = raw.Next();
    unsigned __int128 u = (static_cast<unsigned __int128>(x) * p) >> 64;
    for (size_t i = ranges.size(); i-- > 0;) {
      EXPECT_EQ(got[i], static_cast<uint32_t>(u % ranges[i])) << "seed " << seed << " i " << i;
      u /= ranges[i];
    }
    EXPECT_EQ(u, 0u);
  }
}

// Every pair of positions of a packed sequence is uniform on its product range: a chi-square over
// the 3 x 5 cells of (first, last) and (middle, next) pairs stays below its 0.1% critical value.
TEST(PackedIndices, IndicesAreUniformAndIndependent) {
  const PackedPlan plan = PlanPacked(std::vector<uint32_t>{3, 3, 3, 3, 3, 3, 5, 5});
  Rng rng(7);
  const int draws = 150000;
  std::vector<int> first_last(15), middle(9);
  std::vector<uint32_t> out(8);
  for (int i = 0; i < draws; ++i) {
    DrawPackedInto(plan, &rng, out.data());
    for (uint32_t v : out) ASSERT_LT(v, 5u);
    ++first_last[out[0] * 5 + out[7]];
    ++middle[out[3] * 3 + out[4]];
  }
  auto chi2 = [&](const std::vector<int>& cells) {
    const double expected = static_cast<double>(draws) / cells.size();
    double s = 0;
    for (int c : cells) s += (c - expected) * (c - expected) / expected;
    return s;
  };
  EXPECT_LT(chi2(first_last), 36.12);  // chi2(14) 0.999 quantile
  EXPECT_LT(chi2(middle), 26.12);      // chi2(8)
}

}  // namespace
}  // namespace fleetsweep::stats
