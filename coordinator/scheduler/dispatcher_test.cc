// The Dispatcher on its own, over a ConfigTable built by hand: the reference first and again
// after its drawn gap, session affinity, balance over nodes, and nothing when nothing is ready.
// (dispatch_test.cc checks the resulting design through the Scheduler.)
#include <gtest/gtest.h>

#include "coordinator/scheduler/dispatch.h"

namespace fleetsweep {
namespace {

struct Fixture {
  SweepSpec spec;
  ConfigTable table;
  AdaptiveRepetitions reps;
  Dispatcher dispatcher;

  Fixture() : spec(MakeSpec()), reps(spec, &table, true, 1), dispatcher(&table, &reps, 25, 42) {
    for (int i = 0; i < 3; ++i) {
      ConfigState c;
      c.params["A"] = i;
      c.record.set_config_key(ConfigHash(c.params));
      c.record.set_state(v1::CONFIG_STATE_PENDING);
      table.MarkReady(table.Add(std::move(c)));
    }
    reps.StartBarrier();
  }
  static SweepSpec MakeSpec() {
    auto s = ParseSpecText(
        "sweep: d\nexecutor: {type: exec, command: [\"/bin/true\"], timeout: 5}\n"
        "parameters:\n  A: {values: [0, 1, 2]}\nrepetitions: {min: 2, max: 2}\n"
        "metrics: [{name: t, goal: minimize}]\n",
        "d.yaml");
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : SweepSpec{};
  }
  // Next + what the Scheduler does with the choice (a lease), then Granted.
  std::optional<Dispatcher::Choice> Lease(ReferenceSchedule* schedule, const std::string& node,
                                          SessionKeys* sessions) {
    auto choice = dispatcher.Next(*schedule, node, sessions);
    if (!choice) return choice;
    if (choice->config >= 0 && !choice->reference) table.LeaseStarted(choice->config);
    dispatcher.Granted(*choice, node, schedule);
    return choice;
  }
};

TEST(Dispatcher, TheReferenceRunsFirstAndAgainAfterItsDrawnGap) {
  Fixture f;
  f.dispatcher.SetReference(Config{{"A", 1}});
  ReferenceSchedule schedule;
  SessionKeys none;
  auto first = f.Lease(&schedule, "n1", &none);
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(first->reference);
  EXPECT_EQ(first->config, 1) << "the reference is in the space";
  EXPECT_FALSE(schedule.due);
  const int period = f.dispatcher.ReferencePeriod();
  EXPECT_EQ(period, 3) << "at most the number of configurations";
  EXPECT_GE(schedule.gap, period / 2);
  EXPECT_LE(schedule.gap, period / 2 + period);
  const int gap = std::max(1, schedule.gap);
  for (int i = 0; i < gap; ++i) {
    auto c = f.Lease(&schedule, "n1", &none);
    ASSERT_TRUE(c.has_value());
    EXPECT_FALSE(c->reference) << "lease " << i << " of a gap of " << gap;
  }
  EXPECT_TRUE(schedule.due);
  auto again = f.Lease(&schedule, "n1", &none);
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->reference);
}

TEST(Dispatcher, AReferenceOutsideTheSpaceHasNoConfiguration) {
  Fixture f;
  f.dispatcher.SetReference(Config{{"A", 99}});
  ReferenceSchedule schedule;
  SessionKeys none;
  auto c = f.dispatcher.Next(schedule, "n1", &none);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->reference);
  EXPECT_EQ(c->config, -1);
  EXPECT_EQ(f.dispatcher.reference_key(), ConfigHash(Config{{"A", 99}}));
}

TEST(Dispatcher, AnOpenSessionKeyAttractsItsConfigurationOnce) {
  Fixture f;
  ReferenceSchedule schedule;
  SessionKeys sessions{{{"A", "2"}}};
  auto c = f.Lease(&schedule, "n1", &sessions);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->config, 2);
  EXPECT_TRUE(sessions.empty()) << "one slot per open key";
}

TEST(Dispatcher, FewestExecutionsOnTheNodeFirstAndNothingWhenNothingIsReady) {
  Fixture f;
  f.table.at(0).node_runs["n1"] = 1;
  f.table.at(2).node_runs["n1"] = 1;
  ReferenceSchedule schedule;
  SessionKeys none;
  auto c = f.Lease(&schedule, "n1", &none);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->config, 1);
  EXPECT_EQ(f.table.at(1).node_runs.at("n1"), 1) << "Granted counts the lease on its node";
  int leases = 1;
  while (f.Lease(&schedule, "n1", &none)) ++leases;
  EXPECT_EQ(leases, 6) << "3 configurations x repetitions.min, then nothing is ready";
  EXPECT_FALSE(f.dispatcher.Next(schedule, "n1", &none).has_value());
}

}  // namespace
}  // namespace fleetsweep
