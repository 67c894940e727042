// The search strategies through the facade: racing saves executions and keeps the winner,
// random and lhs respect the budget (search_test.cc tests the strategies on their own).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <set>

#include "common/space/expand.h"
#include "common/store/file_store.h"
#include "common/wire/wire.h"
#include "coordinator/scheduler/scheduler.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

// A sweep whose configurations differ clearly: racing stops the clearly worse ones after the first
// round, grid runs everything to the repetition cap; both keep the same best configuration.
int RunStrategy(const std::string& strategy, const std::string& dir, std::string* best) {
  std::string text = std::string(R"(sweep: race
executor: {type: exec, command: ["/bin/true"], timeout: 5}
parameters:
  A: {values: [1, 2, 3, 4, 5, 6]}
repetitions: {min: 3, max: 8, target_rel_ci: 0.0001}
metrics: [{name: t, goal: minimize}]
search: {strategy: )") +
                     strategy + "}\n";
  auto spec = ParseSpecText(text, "race.yaml");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  auto store = FileStore::Open(dir);
  EXPECT_TRUE(store.ok());
  SchedulerOptions o;
  Scheduler s(*spec, o, store->get());
  EXPECT_TRUE(s.Init().ok());
  v1::Hello h;
  h.mutable_node()->set_slots(1);
  s.OnHello("w", h, 0);
  int executions = 0;
  uint64_t noise = 1;
  for (int round = 0; round < 2000 && !s.Finished(); ++round) {
    for (auto& l : s.OnWorkRequest("w", 1, 0)) {
      ++executions;
      v1::Result r;
      r.set_lease_id(l.lease_id());
      r.set_sweep(l.sweep());
      r.mutable_attempt()->set_config_key(l.config_key());
      r.mutable_attempt()->set_attempt_id(l.lease_id());
      r.mutable_attempt()->set_ok(true);
      noise = noise * 6364136223846793005ULL + 1442695040888963407ULL;
      double jitter = static_cast<double>(noise >> 40) / static_cast<double>(1 << 24);  // [0,1)
      auto* smp = r.mutable_attempt()->add_samples();
      smp->set_metric("t");
      smp->set_value(10.0 * std::stoi(l.params().at("A")) + jitter);
      EXPECT_TRUE(s.OnResult("w", r, 0).ok());
    }
  }
  EXPECT_TRUE(s.Finished());
  *best = CanonicalKey(s.configs().Params(s.BestIndex()));
  if (strategy == "racing") {
    EXPECT_GE(s.GetProgress().eliminated, 4);
  }
  return executions;
}

TEST(SchedulerSearch, RacingSavesExecutionsAndKeepsTheWinner) {
  auto d = testing::TempDir::Create();
  ASSERT_TRUE(d.ok());
  std::string best_grid, best_race;
  int grid = RunStrategy("grid", d->Join("grid"), &best_grid);
  int race = RunStrategy("racing", d->Join("race"), &best_race);
  EXPECT_EQ(grid, 6 * 8);
  EXPECT_LT(race, grid * 3 / 4);
  EXPECT_EQ(best_grid, "A=1");
  EXPECT_EQ(best_race, best_grid);
}

TEST(SchedulerSearch, RandomAndLhsRespectTheBudget) {
  auto d = testing::TempDir::Create();
  ASSERT_TRUE(d.ok());
  for (std::string strategy : {"random", "lhs"}) {
    std::string text = R"(sweep: s
executor: {type: exec, command: ["/bin/true"]}
parameters:
  A: {values: [1, 2, 3, 4]}
  B: {values: [1, 2, 3, 4]}
metrics: [{name: t, goal: minimize}]
search: {strategy: )" + strategy +
                       ", budget: 4, seed: 7}\n";
    auto spec = ParseSpecText(text, "s.yaml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    auto store = FileStore::Open(d->Join(strategy));
    ASSERT_TRUE(store.ok());
    Scheduler s(*spec, SchedulerOptions{}, store->get());
    ASSERT_TRUE(s.Init().ok());
    ASSERT_EQ(s.configs().size(), 4) << strategy;
    if (strategy == "lhs") {
      // Latin hypercube: every level of A and of B appears exactly once in 4 samples.
      std::set<std::string> a, b;
      for (int i = 0; i < s.configs().size(); ++i) {
        const Config c = s.configs().Params(i);
        a.insert(c.at("A").ToString());
        b.insert(c.at("B").ToString());
      }
      EXPECT_EQ(a.size(), 4u);
      EXPECT_EQ(b.size(), 4u);
    }
  }
}

// A sampled sweep's Init draws its sample from the index, without walking the space: on
// 1,000,000 configurations (10^6 unconstrained) random and lhs start no walk of the raw product
// (expanding the space to draw the sample, as Init once did, is such a walk); with a constraint
// the only walk is SpaceIndex::Build's (the surviving raw indices).
TEST(SchedulerSearch, SampledSweepsDoNotExpandTheSpace) {
  auto d = testing::TempDir::Create();
  ASSERT_TRUE(d.ok());
  const std::string levels = "{values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}";
  std::string params = "parameters:\n";
  for (const char* name : {"A", "B", "C", "D", "E", "F"}) {
    params += std::string("  ") + name + ": " + levels + "\n";
  }
  for (const std::string constraint : {"", "constraints: ['A != 3']\n"}) {
    for (const std::string strategy : {"random", "lhs"}) {
      auto spec = ParseSpecText(
          "sweep: s\nexecutor: {type: exec, command: [\"/bin/true\"]}\n" + params + constraint +
              "metrics: [{name: t, goal: minimize}]\nsearch: {strategy: " + strategy +
              ", budget: 1000, seed: 7}\n",
          "s.yaml");
      ASSERT_TRUE(spec.ok()) << spec.status().ToString();
      auto store = FileStore::Open(d->Join(strategy + std::to_string(constraint.size())));
      ASSERT_TRUE(store.ok());
      Scheduler s(*spec, SchedulerOptions{}, store->get());
      const uint64_t walks = SpaceWalksStarted();
      ASSERT_TRUE(s.Init().ok());
      EXPECT_EQ(SpaceWalksStarted() - walks, constraint.empty() ? 0u : 1u) << strategy;
      ASSERT_EQ(s.configs().size(), 1000) << strategy;
      std::set<std::string> keys;
      for (int i = 0; i < s.configs().size(); ++i) {
        const Config c = s.configs().Params(i);
        EXPECT_EQ(c.size(), 6u);
        if (!constraint.empty()) {
          EXPECT_NE(c.at("A").ToString(), "3") << strategy;
        }
        keys.insert(CanonicalKey(c));
      }
      EXPECT_EQ(keys.size(), 1000u) << strategy << ": distinct configurations";
    }
  }
}

}  // namespace
}  // namespace fleetsweep
