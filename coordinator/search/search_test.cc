// The search strategies on their own: which configurations grid, random and lhs keep, and
// racing's elimination of configurations clearly worse than the leader.
#include "coordinator/search/search.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "common/space/expand.h"

namespace fleetsweep {
namespace {

SweepSpec Spec(const std::string& search) {
  auto s = ParseSpecText(
      "sweep: s\nexecutor: {type: exec, command: [\"/bin/true\"], timeout: 5}\n"
      "parameters:\n  A: {values: [1, 2, 3, 4]}\n  B: {values: [p, q, r, s]}\n"
      "repetitions: {min: 2, max: 4}\nmetrics: [{name: t, goal: minimize}]\nsearch: " +
          search + "\n",
      "s.yaml");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : SweepSpec{};
}

std::vector<Config> Expand(const SweepSpec& spec) {
  std::vector<Config> all;
  SpaceIterator it(spec);
  Config c;
  while (it.Next(&c)) all.push_back(c);
  EXPECT_TRUE(it.status().ok());
  return all;
}

std::vector<Config> Kept(const SweepSpec& spec) {
  std::vector<Config> all = Expand(spec);
  std::vector<bool> keep = MakeSearchStrategy(spec, 1)->Select(all);
  EXPECT_EQ(keep.size(), all.size());
  std::vector<Config> out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (keep[i]) out.push_back(all[i]);
  }
  return out;
}

TEST(SearchStrategy, GridAndRacingKeepEveryConfiguration) {
  EXPECT_EQ(Kept(Spec("{strategy: grid, budget: 3}")).size(), 16u) << "grid has no budget";
  EXPECT_EQ(Kept(Spec("{strategy: racing}")).size(), 16u);
  SweepSpec unknown = Spec("{strategy: grid}");
  unknown.search.strategy = "bayes";  // the parser refuses it; built in code it is grid
  EXPECT_EQ(Kept(unknown).size(), 16u);
}

TEST(SearchStrategy, RandomKeepsTheBudgetReproducibly) {
  const std::vector<Config> a = Kept(Spec("{strategy: random, budget: 5, seed: 3}"));
  EXPECT_EQ(a.size(), 5u);
  EXPECT_EQ(Kept(Spec("{strategy: random, budget: 5, seed: 3}")), a) << "same seed, same pick";
  EXPECT_EQ(Kept(Spec("{strategy: random, budget: 40}")).size(), 16u) << "budget over the space";
}

TEST(SearchStrategy, LatinHypercubeUsesEveryLevelEquallyOften) {
  // Budget = levels: every row has its own A level, so no row repeats and none falls back.
  const std::vector<Config> kept = Kept(Spec("{strategy: lhs, budget: 4, seed: 5}"));
  ASSERT_EQ(kept.size(), 4u);
  std::map<std::string, int> a, b;
  for (const Config& c : kept) {
    a[c.at("A").ToString()]++;
    b[c.at("B").ToString()]++;
  }
  EXPECT_EQ(a, (std::map<std::string, int>{{"1", 1}, {"2", 1}, {"3", 1}, {"4", 1}}));
  EXPECT_EQ(b, (std::map<std::string, int>{{"p", 1}, {"q", 1}, {"r", 1}, {"s", 1}}));
}

TEST(SearchStrategy, RacingEliminatesOnlyTheClearlyWorse) {
  const SweepSpec spec = Spec("{strategy: racing}");
  ConfigTable table;
  const double centre[4] = {10, 10.02, 13, 14};
  for (int i = 0; i < 4; ++i) {
    ConfigState c;
    c.record.set_config_key("k" + std::to_string(i));
    c.record.set_state(v1::CONFIG_STATE_PENDING);
    table.Add(std::move(c));
    for (double f : {0.995, 1.0, 1.004}) {  // three executions of three samples
      v1::Attempt a;
      a.set_ok(true);
      for (double g : {0.999, 1.0, 1.001}) {
        auto* s = a.add_samples();
        s->set_metric("t");
        s->set_value(centre[i] * f * g);
      }
      table.AddOk(i, a, "t");
    }
  }
  table.LeaseStarted(3);  // one execution still running
  std::unique_ptr<SearchStrategy> racing = MakeSearchStrategy(spec, 1);
  racing->AfterResults(&table);
  EXPECT_FALSE(table.at(0).record.eliminated()) << "the leader";
  EXPECT_FALSE(table.at(1).record.eliminated()) << "overlaps the leader";
  EXPECT_TRUE(table.at(2).record.eliminated());
  EXPECT_EQ(table.at(2).record.state(), v1::CONFIG_STATE_DONE);
  EXPECT_TRUE(table.at(3).record.eliminated());
  EXPECT_EQ(table.at(3).record.state(), v1::CONFIG_STATE_LEASED) << "done when its lease ends";
  EXPECT_EQ(table.TakeChanged(), (std::vector<int>{2, 3}));
  MakeSearchStrategy(Spec("{strategy: grid}"), 1)->AfterResults(&table);
  EXPECT_TRUE(table.TakeChanged().empty()) << "grid never eliminates";
}

}  // namespace
}  // namespace fleetsweep
