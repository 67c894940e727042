#include "common/space/expand.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common/space/spec.h"

namespace fleetsweep {
namespace {

ParamSpec Swept(const std::string& name, std::vector<Value> values) {
  ParamSpec p;
  p.name = name;
  p.values = values;
  p.declared_levels = values;
  return p;
}

std::vector<Config> Expand(const SweepSpec& spec) {
  std::vector<Config> out;
  SpaceIterator it(spec);
  Config c;
  while (it.Next(&c)) out.push_back(c);
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  return out;
}

TEST(ExpandTest, OrderPinnedMergedInertDropped) {
  auto spec = ParseSpecText(R"(sweep: t
parameters:
  a: [1, 2]
  v1: {fixed: true, values: [true, false], reason: r}
  n: {inert: true, values: [8, 16, 32], reason: r}
  b: [x, y, z]
)",
                            "t");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  std::vector<Config> all = Expand(*spec);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0], (Config{{"a", 1}, {"b", "x"}, {"v1", true}}));
  EXPECT_EQ(all[1], (Config{{"a", 1}, {"b", "y"}, {"v1", true}}));  // last declared fastest
  EXPECT_EQ(all[3], (Config{{"a", 2}, {"b", "x"}, {"v1", true}}));
  EXPECT_EQ(all[5], (Config{{"a", 2}, {"b", "z"}, {"v1", true}}));
  auto counts = CountSpace(*spec);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->raw, 2 * 2 * 3 * 3);
  EXPECT_EQ(counts->after_inert, 2 * 2 * 3);
  EXPECT_EQ(counts->after_pinned, 2 * 3);
  EXPECT_TRUE(counts->after_constraint.empty());
  EXPECT_EQ(counts->final_count, 6u);
}

TEST(ExpandTest, RawIndexAndConstraintFiltering) {
  auto spec = ParseSpecText(
      "sweep: t\nparameters:\n  a: [1, 2, 3, 4]\n  b: [1, 2]\nconstraints: ['a % 2 == 0']\n", "t");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  SpaceIterator it(*spec);
  Config c;
  std::vector<uint64_t> raw;
  while (it.Next(&c)) raw.push_back(it.raw_index());
  EXPECT_EQ(raw, (std::vector<uint64_t>{2, 3, 6, 7}));
  EXPECT_FALSE(it.Next(&c));  // stays at the end
}

TEST(ExpandTest, NoSweptParametersIsOneConfiguration) {
  auto spec = ParseSpecText("sweep: t\nparameters:\n  v1: {fixed: 1, reason: r}\n", "t");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(Expand(*spec), (std::vector<Config>{{{"v1", 1}}}));
  EXPECT_EQ(CountSpace(*spec)->final_count, 1u);
}

TEST(ExpandTest, HandBuiltSpecWithUnparsedConstraints) {
  SweepSpec spec;
  spec.params = {Swept("a", {1, 2, 3}), Swept("b", {1, 2, 3})};
  spec.constraints.push_back({"a < b", nullptr, 0, 0});
  EXPECT_EQ(Expand(spec).size(), 3u);
  EXPECT_EQ(*SatisfiesConstraints(spec, {{"a", 1}, {"b", 2}}), true);
  EXPECT_EQ(*SatisfiesConstraints(spec, {{"a", 2}, {"b", 2}}), false);
  spec.constraints.push_back({"a < zz", nullptr, 0, 0});
  SpaceIterator it(spec);
  Config c;
  EXPECT_FALSE(it.Next(&c));
  EXPECT_NE(it.status().message().find("unknown parameter 'zz'"), std::string::npos);
  EXPECT_FALSE(CountSpace(spec).ok());
  EXPECT_FALSE(SatisfiesConstraints(spec, {{"a", 1}, {"b", 2}}).ok());
}

TEST(ExpandTest, EvaluationErrorStopsIterationWithStatus) {
  SweepSpec spec;
  spec.params = {Swept("a", {1, 0, 2})};
  spec.constraints.push_back({"6 / a > 1", nullptr, 0, 0});
  SpaceIterator it(spec);
  Config c;
  EXPECT_TRUE(it.Next(&c));
  EXPECT_FALSE(it.Next(&c));
  EXPECT_NE(it.status().message().find("division by zero"), std::string::npos);
  EXPECT_NE(it.status().message().find("a=0"), std::string::npos);
  auto counts = CountSpace(spec);
  ASSERT_FALSE(counts.ok());
  EXPECT_NE(counts.status().message().find("constraint '6 / a > 1'"), std::string::npos);
}

// Counts and expansion checked against brute force over random small spaces, with constraints
// whose meaning is restated in C++.
struct Rule {
  const char* text;
  std::function<bool(const std::vector<int64_t>&)> holds;  // values of p0..p3
};

TEST(ExpandTest, CountsPerStepMatchBruteForce) {
  const std::vector<Rule> rules = {
      {"p0 % 2 == 0", [](auto& v) { return v[0] % 2 == 0; }},
      {"p0 + p1 > 4", [](auto& v) { return v[0] + v[1] > 4; }},
      {"p1 <= p2 or p3 == 1", [](auto& v) { return v[1] <= v[2] || v[3] == 1; }},
      {"p2 not in [2, 3]", [](auto& v) { return v[2] != 2 && v[2] != 3; }},
      {"max(p0, p3) * 2 >= p1", [](auto& v) { return std::max(v[0], v[3]) * 2 >= v[1]; }},
      {"p3 != 4", [](auto& v) { return v[3] != 4; }},
  };
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 200; ++trial) {
    SweepSpec spec;
    std::vector<std::vector<int64_t>> levels(4);
    for (int i = 0; i < 4; ++i) {
      int n = 1 + static_cast<int>(rng() % 5);
      for (int k = 0; k < n; ++k) {
        levels[i].push_back(k + 1 + static_cast<int64_t>(rng() % 2) * 3);
      }
      std::sort(levels[i].begin(), levels[i].end());
      levels[i].erase(std::unique(levels[i].begin(), levels[i].end()), levels[i].end());
      std::vector<Value> values(levels[i].begin(), levels[i].end());
      spec.params.push_back(Swept("p" + std::to_string(i), values));
    }
    ParamSpec inert;
    inert.name = "ignored";
    inert.fate = ParamFate::kInert;
    inert.values = inert.declared_levels = {1, 2, 3};
    spec.params.insert(spec.params.begin() + static_cast<long>(rng() % 4), inert);
    std::vector<Rule> chosen;
    for (const Rule& r : rules) {
      if (rng() % 2) chosen.push_back(r);
    }
    for (const Rule& r : chosen) spec.constraints.push_back({r.text, nullptr, 0, 0});

    // Brute force: nested loops over p0..p3 (p3 fastest, the declaration order).
    std::vector<uint64_t> expected_after(chosen.size(), 0);
    std::vector<Config> expected;
    for (int64_t a : levels[0])
      for (int64_t b : levels[1])
        for (int64_t c : levels[2])
          for (int64_t d : levels[3]) {
            std::vector<int64_t> v = {a, b, c, d};
            size_t k = 0;
            while (k < chosen.size() && chosen[k].holds(v)) ++expected_after[k++];
            if (k == chosen.size())
              expected.push_back({{"p0", a}, {"p1", b}, {"p2", c}, {"p3", d}});
          }
    double product = 1;
    for (auto& l : levels) product *= static_cast<double>(l.size());

    auto counts = CountSpace(spec);
    ASSERT_TRUE(counts.ok()) << counts.status().ToString();
    EXPECT_EQ(counts->raw, product * 3);
    EXPECT_EQ(counts->after_inert, product);
    EXPECT_EQ(counts->after_pinned, product);
    EXPECT_EQ(counts->after_constraint, expected_after) << "trial " << trial;
    EXPECT_EQ(counts->final_count, expected.size());
    EXPECT_EQ(Expand(spec), expected) << "trial " << trial;
  }
}

TEST(ExpandTest, ExampleSpecsCount) {
  std::string here = __FILE__;
  std::string root =
      here.substr(0, here.size() - std::string("/common/space/expand_test.cc").size());
  auto kernels = ParseSpecFile(root + "/examples/bi-v100-kernels.yaml");
  ASSERT_TRUE(kernels.ok()) << kernels.status().ToString();
  auto k = CountSpace(*kernels);
  ASSERT_TRUE(k.ok());
  // Swept: BLOCK_SIZE_M 5; inert N 2, K 2, GROUP 3 (declared, never multiplied); no constraint.
  EXPECT_EQ(k->raw, 5 * 12);
  EXPECT_EQ(k->after_inert, 5);
  EXPECT_EQ(k->after_pinned, 5);
  EXPECT_TRUE(k->after_constraint.empty());
  EXPECT_EQ(k->final_count, 5u);
  auto engine = ParseSpecFile(root + "/examples/bi-v100-engine.yaml");
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  auto e = CountSpace(*engine);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->after_pinned, 32);
  EXPECT_EQ(e->after_constraint, (std::vector<uint64_t>{32, 28}));  // no chunking needs >= 4096
}

}  // namespace
}  // namespace fleetsweep
