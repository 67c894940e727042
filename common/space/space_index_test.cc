// SpaceIndex decodes position i to the i-th configuration SpaceIterator returns, on spaces with
// constraints, pinned and inert parameters, and after a Select.
#include "common/space/space_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/space/expand.h"
#include "common/space/spec.h"

namespace fleetsweep {
namespace {

struct Expanded {
  std::vector<Config> configs;
  std::vector<uint64_t> raw;
};

Expanded Expand(const SweepSpec& spec) {
  Expanded out;
  SpaceIterator it(spec);
  while (it.Advance()) {
    out.configs.push_back(it.current());
    out.raw.push_back(it.raw_index());
  }
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  return out;
}

// Every position of the index against the iterator's expansion.
void ExpectMatchesExpansion(const std::string& text) {
  auto spec = ParseSpecText(text, "t.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const Expanded want = Expand(*spec);
  auto index = SpaceIndex::Build(*spec);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  ASSERT_EQ(index->size(), static_cast<int64_t>(want.configs.size())) << text;
  for (size_t i = 0; i < want.configs.size(); ++i) {
    const auto at = static_cast<int64_t>(i);
    ASSERT_EQ(index->ParamsAt(at), want.configs[i]) << "position " << i << " of\n" << text;
    EXPECT_EQ(index->KeyAt(at), ConfigHash(want.configs[i]));
    EXPECT_EQ(index->RawIndexAt(at), want.raw[i]);
  }
}

TEST(SpaceIndexTest, NoConstraintsPinnedMergedInertDropped) {
  ExpectMatchesExpansion(R"(sweep: t
parameters:
  a: [1, 2]
  v1: {fixed: true, values: [true, false], reason: r}
  n: {inert: true, values: [8, 16, 32], reason: r}
  b: [x, y, z]
  c: [0.5, 1.5, 2.5, 3.5]
)");
}

TEST(SpaceIndexTest, OneConstraint) {
  ExpectMatchesExpansion(
      "sweep: t\nparameters:\n  a: [1, 2, 3, 4]\n  b: [1, 2]\nconstraints: ['a % 2 == 0']\n");
}

TEST(SpaceIndexTest, SeveralConstraintsOverMixedTypes) {
  ExpectMatchesExpansion(R"(sweep: t
parameters:
  A: {values: [1, 2, 3, 4, 5, 6, 7]}
  B: {values: [10, 20, 30, 40, 50, 60]}
  mode: [fast, slow, exact]
  flag: [true, false]
  P: {fixed: 7, reason: pinned}
constraints:
  - "A % 3 != 0 or B > 30"
  - "A + B >= 14"
  - "mode != 'exact' or flag"
)");
}

SweepSpec OneParamSpec(const std::string& constraint) {
  SweepSpec spec;  // built by hand: the spec parser refuses an empty space
  spec.name = "t";
  ParamSpec a;
  a.name = "a";
  a.values = {Value(1), Value(2)};
  spec.params.push_back(a);
  ConstraintSpec c;
  c.text = constraint;
  spec.constraints.push_back(c);
  return spec;
}

TEST(SpaceIndexTest, ConstraintsThatRemoveEverythingGiveAnEmptyIndex) {
  auto index = SpaceIndex::Build(OneParamSpec("a > 5"));
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ(index->size(), 0);
  auto one = SpaceIndex::Build(OneParamSpec("a > 1"));
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1);
  EXPECT_EQ(one->ParamsAt(0), (Config{{"a", 2}}));
  EXPECT_EQ(one->RawIndexAt(0), 1u);
}

TEST(SpaceIndexTest, SelectKeepsThePositionsInOrder) {
  auto spec = ParseSpecText(
      "sweep: t\nparameters:\n  a: [1, 2, 3, 4]\n  b: [1, 2, 3]\nconstraints: ['a != 2']\n",
      "t.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const Expanded all = Expand(*spec);
  auto index = SpaceIndex::Build(*spec);
  ASSERT_TRUE(index.ok());
  std::vector<int64_t> keep;
  std::vector<Config> want;
  for (size_t i = 0; i < all.configs.size(); i += 3) {
    keep.push_back(static_cast<int64_t>(i));
    want.push_back(all.configs[i]);
  }
  index->Select(keep);
  ASSERT_EQ(index->size(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(index->ParamsAt(static_cast<int64_t>(i)), want[i]) << i;
  }
}

TEST(SpaceIndexTest, PositionOfInvertsRawIndexAt) {
  for (const std::string constraints : {"", "constraints: ['a != 2 and b != 3']\n"}) {
    auto spec = ParseSpecText(
        "sweep: t\nparameters:\n  a: [1, 2, 3, 4]\n  b: [1, 2, 3]\n" + constraints, "t.yaml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    const Expanded all = Expand(*spec);
    auto index = SpaceIndex::Build(*spec);
    ASSERT_TRUE(index.ok());
    std::vector<int64_t> want(12, -1);  // raw product 4 x 3: -1 where a constraint removed it
    for (size_t i = 0; i < all.raw.size(); ++i) want[all.raw[i]] = static_cast<int64_t>(i);
    for (uint64_t raw = 0; raw < 13; ++raw) {
      EXPECT_EQ(index->PositionOf(raw), raw < 12 ? want[raw] : -1) << constraints << raw;
    }
    index->Select({1, 4});  // after a Select: positions in the selection
    EXPECT_EQ(index->PositionOf(all.raw[4]), 1);
    EXPECT_EQ(index->PositionOf(all.raw[1]), 0);
    EXPECT_EQ(index->PositionOf(all.raw[2]), -1) << "not selected";
  }
}

TEST(SpaceIndexTest, AConstraintThatCannotBeEvaluatedIsAnError) {
  auto index = SpaceIndex::Build(OneParamSpec("nope > 1"));
  ASSERT_FALSE(index.ok());
  EXPECT_EQ(index.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(index.status().message().find("nope"), std::string::npos) << index.status().ToString();
}

TEST(SpaceIndexTest, SweepSizeIsTheConstrainedSpaceCappedByASampledBudget) {
  const std::string space =
      "sweep: t\nparameters:\n  a: [1, 2, 3, 4]\n  b: [1, 2, 3]\nconstraints: ['a != 2']\n";
  auto grid = ParseSpecText(space, "t.yaml");
  ASSERT_TRUE(grid.ok()) << grid.status().ToString();
  EXPECT_EQ(*SweepSize(*grid), 9);
  auto random = ParseSpecText(space + "search: {strategy: random, budget: 4, seed: 3}\n", "t.yaml");
  ASSERT_TRUE(random.ok()) << random.status().ToString();
  EXPECT_EQ(*SweepSize(*random), 4);
  auto large = ParseSpecText(space + "search: {strategy: lhs, budget: 50, seed: 3}\n", "t.yaml");
  ASSERT_TRUE(large.ok()) << large.status().ToString();
  EXPECT_EQ(*SweepSize(*large), 9);
}

}  // namespace
}  // namespace fleetsweep
