#include "common/stats/seeded_subset.h"

#include <gtest/gtest.h>

namespace fleetsweep::stats {
namespace {

TEST(SeededSubset, TakesWholeGroupsInHashOrderUntilTheTarget) {
  // Hash order: group 2 (size 3), group 0 (size 4), group 3, group 1.
  const std::vector<bool> keep = SeededSubset({20, 40, 10, 30}, {4, 5, 3, 6}, 6);
  EXPECT_EQ(keep, (std::vector<bool>{true, false, true, false}));  // 3 + 4 >= 6: stop
}

TEST(SeededSubset, KeepsEverythingUnderTheTargetAndBreaksTiesByIndex) {
  EXPECT_EQ(SeededSubset({5, 1}, {2, 2}, 100), (std::vector<bool>{true, true}));
  EXPECT_EQ(SeededSubset({7, 7, 7}, {1, 1, 1}, 2), (std::vector<bool>{true, true, false}));
  EXPECT_TRUE(SeededSubset({}, {}, 5).empty());
}

}  // namespace
}  // namespace fleetsweep::stats
