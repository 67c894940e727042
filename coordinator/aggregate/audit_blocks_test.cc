#include "coordinator/aggregate/audit_blocks.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace fleetsweep {
namespace {

ConfigResult WithParams(std::map<std::string, std::string> params) {
  ConfigResult c;
  c.params = std::move(params);
  return c;
}

std::vector<size_t> MembersOf(const std::vector<ParamBlock>& blocks, const std::string& key) {
  for (const ParamBlock& b : blocks) {
    if (b.key == key) return b.members;
  }
  return {};
}

TEST(ParamTable, LevelsAreIdsOfTheValuesAsGiven) {
  const std::vector<ConfigResult> cs = {WithParams({{"A", "1"}, {"B", "x"}}),
                                        WithParams({{"A", "2"}, {"B", "x"}}),
                                        WithParams({{"A", "1"}})};
  const ParamTable t(cs);
  const int32_t a = t.Param("A"), b = t.Param("B");
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_EQ(t.Param("C"), -1);
  EXPECT_EQ(t.Level(0, a), t.Level(2, a));
  EXPECT_NE(t.Level(0, a), t.Level(1, a));
  EXPECT_EQ(t.Text(a, t.Level(1, a)), "2");
  EXPECT_EQ(t.Level(2, b), -1);  // configuration 2 has no B
  EXPECT_EQ(t.Level(0, -1), -1);
}

// The blocks are those a std::map keyed by the text of the other parameters gave: same members,
// same order (by that text, so "B=10" sorts before "B=9"), configurations without p left out, and
// configurations whose other parameters differ in name kept apart.
TEST(ParamTable, BlocksAreOrderedByTheTextOfTheOtherParameters) {
  std::vector<ConfigResult> cs;
  for (const char* b : {"9", "10"}) {
    for (const char* a : {"1", "2"}) cs.push_back(WithParams({{"A", a}, {"B", b}}));
  }
  cs.push_back(WithParams({{"A", "1"}, {"C", "9"}}));  // 4: B missing, C instead
  cs.push_back(WithParams({{"B", "9"}}));              // 5: no A
  const ParamTable t(cs);
  const auto blocks = t.BlocksDifferingIn("A", [](size_t) { return true; });
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].key, "B=10\x1f");
  EXPECT_EQ(blocks[1].key, "B=9\x1f");
  EXPECT_EQ(blocks[2].key, "C=9\x1f");
  EXPECT_EQ(blocks[0].members, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(blocks[1].members, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(blocks[2].members, (std::vector<size_t>{4}));
  for (const ParamBlock& blk : blocks) EXPECT_EQ(blk.key, OthersKey(cs[blk.members[0]], "A"));
}

TEST(ParamTable, KeepFiltersConfigurationsBeforeGrouping) {
  std::vector<ConfigResult> cs;
  for (const char* a : {"1", "2", "3"}) cs.push_back(WithParams({{"A", a}, {"B", "x"}}));
  const ParamTable t(cs);
  const auto blocks = t.BlocksDifferingIn("A", [](size_t i) { return i != 1; });
  EXPECT_EQ(MembersOf(blocks, "B=x\x1f"), (std::vector<size_t>{0, 2}));
  EXPECT_TRUE(t.BlocksDifferingIn("Z", [](size_t) { return true; }).empty());
}

}  // namespace
}  // namespace fleetsweep
