#include "coordinator/aggregate/flat_map.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace fleetsweep {
namespace {

std::vector<std::string> Keys(const FlatMap<std::string, int>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

TEST(FlatMap, IteratesInKeyOrderWhateverTheInsertionOrder) {
  FlatMap<std::string, int> m;
  EXPECT_TRUE(m.emplace("b", 2).second);
  EXPECT_TRUE(m.emplace("c", 3).second);
  EXPECT_TRUE(m.emplace("a", 1).second);
  EXPECT_EQ(Keys(m), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(m.size(), 3u);
}

TEST(FlatMap, EmplaceKeepsTheFirstValueAsStdMapDoes) {
  FlatMap<std::string, int> m;
  m.emplace("a", 1);
  auto [it, inserted] = m.emplace("a", 9);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(it->second, 1);
  m["a"] = 5;  // operator[] reaches the existing value
  EXPECT_EQ(m.at("a"), 5);
  m["z"] += 2;  // and default-constructs a missing one
  EXPECT_EQ(m.at("z"), 2);
}

TEST(FlatMap, FindCountAndAtOnPresentAndMissingKeys) {
  const FlatMap<std::string, int> m{{"x", 1}, {"y", 2}};
  EXPECT_EQ(m.find("y")->second, 2);
  EXPECT_EQ(m.find("w"), m.end());
  EXPECT_EQ(m.find("z"), m.end());  // past the last key
  EXPECT_EQ(m.count("x"), 1u);
  EXPECT_EQ(m.count("q"), 0u);
  EXPECT_THROW(m.at("q"), std::out_of_range);
}

TEST(FlatMap, EqualsWhatAStdMapOfTheSameItemsBecomes) {
  const std::map<std::string, int> from{{"b", 2}, {"a", 1}};
  const FlatMap<std::string, int> m = from;
  EXPECT_EQ(m, (FlatMap<std::string, int>{{"a", 1}, {"b", 2}}));
  EXPECT_NE(m, (FlatMap<std::string, int>{{"a", 1}, {"b", 3}}));
}

TEST(FlatSet, KeepsDistinctKeysInOrder) {
  FlatSet<std::string> s;
  EXPECT_TRUE(s.insert("m").second);
  EXPECT_TRUE(s.insert("a").second);
  EXPECT_FALSE(s.insert("m").second);
  EXPECT_EQ(std::vector<std::string>(s.begin(), s.end()), (std::vector<std::string>{"a", "m"}));
  EXPECT_EQ(s.count("a"), 1u);
  EXPECT_EQ(s.find("b"), s.end());
  const FlatSet<std::string> from_set = std::set<std::string>{"m", "a"};
  EXPECT_EQ(from_set, s);
}

}  // namespace
}  // namespace fleetsweep
