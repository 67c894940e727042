// ConfigTable on its own: storage by index and key, state transitions and the changed records,
// the finished scan (a reopened configuration is unfinished again), the ready queue, counted
// samples and failures, state counts and the best configuration.
#include "coordinator/scheduler/config_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace fleetsweep {
namespace {

ConfigState Config_(const std::string& key, int a) {
  ConfigState c;
  c.params["A"] = a;
  c.record.set_config_key(key);
  c.record.set_state(v1::CONFIG_STATE_PENDING);
  return c;
}

v1::Attempt Ok(std::initializer_list<double> values, const std::string& metric = "t") {
  v1::Attempt a;
  a.set_ok(true);
  for (double v : values) {
    auto* s = a.add_samples();
    s->set_metric(metric);
    s->set_value(v);
  }
  return a;
}

ConfigTable ThreeConfigs() {
  ConfigTable t;
  EXPECT_EQ(t.Add(Config_("k0", 0)), 0);
  EXPECT_EQ(t.Add(Config_("k1", 1)), 1);
  EXPECT_EQ(t.Add(Config_("k2", 2)), 2);
  return t;
}

TEST(ConfigTable, FindsConfigurationsByKey) {
  ConfigTable t = ThreeConfigs();
  EXPECT_EQ(t.size(), 3);
  EXPECT_EQ(t.Find("k1"), 1);
  EXPECT_EQ(t.Find("nope"), -1);
  EXPECT_EQ(t.at(2).params.at("A").ToString(), "2");
}

TEST(ConfigTable, StateChangesAreRememberedOnceInIndexOrder) {
  ConfigTable t = ThreeConfigs();
  t.SetState(2, v1::CONFIG_STATE_DONE);
  t.SetState(0, v1::CONFIG_STATE_PENDING);  // no change
  t.SetState(1, v1::CONFIG_STATE_INFEASIBLE);
  t.MarkChanged(2);
  EXPECT_EQ(t.TakeChanged(), (std::vector<int>{1, 2}));
  EXPECT_TRUE(t.TakeChanged().empty());
  t.LeaseStarted(0);
  EXPECT_EQ(t.at(0).record.state(), v1::CONFIG_STATE_LEASED);
  EXPECT_EQ(t.at(0).inflight, 1);
  EXPECT_TRUE(t.TakeChanged().empty()) << "a lease's LEASED state is not a record to write";
  t.LeaseEnded(0);
  EXPECT_EQ(t.at(0).inflight, 0);
}

TEST(ConfigTable, FinishedWhenAllAreDoneOrInfeasibleAndNotAfterAReopen) {
  ConfigTable t = ThreeConfigs();
  EXPECT_FALSE(t.Finished());
  t.SetState(0, v1::CONFIG_STATE_DONE);
  t.SetState(1, v1::CONFIG_STATE_INFEASIBLE);
  EXPECT_FALSE(t.Finished());
  t.SetState(2, v1::CONFIG_STATE_DONE);
  EXPECT_TRUE(t.Finished());
  t.SetState(0, v1::CONFIG_STATE_PENDING);  // stage 2 reopens one behind the scan mark
  EXPECT_FALSE(t.Finished());
  t.SetState(0, v1::CONFIG_STATE_DONE);
  EXPECT_TRUE(t.Finished());
}

TEST(ConfigTable, ReadyQueueHoldsEachConfigurationOnceInOrder) {
  ConfigTable t = ThreeConfigs();
  EXPECT_EQ(t.PopReady(), -1);
  t.MarkReady(2);
  t.MarkReady(0);
  t.MarkReady(2);
  EXPECT_EQ(t.PopReady(), 2);
  t.MarkReady(1);
  t.PushReadyFront(2);
  EXPECT_EQ(t.PopReady(), 2);
  EXPECT_EQ(t.PopReady(), 0);
  EXPECT_EQ(t.PopReady(), 1);
  EXPECT_EQ(t.PopReady(), -1);
}

TEST(ConfigTable, OkAttemptsAddFinitePrimarySamplesAsOneExecution) {
  ConfigTable t = ThreeConfigs();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(t.AddOk(0, Ok({3, nan, 1, 2}), "t"));
  EXPECT_FALSE(t.AddOk(0, Ok({100}, "other"), "t")) << "another metric is not a sample";
  const ConfigState& c = t.at(0);
  EXPECT_EQ(c.ok_attempts, 2);
  ASSERT_EQ(c.executions.size(), 1u);
  EXPECT_EQ(c.executions[0], (std::vector<double>{3, 1, 2}));
  EXPECT_EQ(c.median, 2);
  EXPECT_TRUE(t.AddOk(0, Ok({10, 11}), "t"));
  EXPECT_EQ(c.primary.size(), 5u);
  EXPECT_EQ(c.median, 3);
}

TEST(ConfigTable, FailuresAreCountedByClassWithTheLastDetail) {
  ConfigTable t = ThreeConfigs();
  v1::Attempt a;
  a.set_failure_class(v1::FAILURE_CLASS_TIMEOUT);
  a.set_failure_detail("first");
  t.AddFailure(1, a);
  a.set_failure_class(v1::FAILURE_CLASS_WRONG_RESULT);
  a.set_failure_detail(std::string(800, 'x'));
  t.AddFailure(1, a);
  const ConfigState& c = t.at(1);
  EXPECT_EQ(c.record.failures(), 2);
  EXPECT_EQ(c.failure_counts.at(v1::FAILURE_CLASS_TIMEOUT), 1);
  EXPECT_EQ(c.failure_counts.at(v1::FAILURE_CLASS_WRONG_RESULT), 1);
  EXPECT_EQ(c.record.last_failure(), v1::FAILURE_CLASS_WRONG_RESULT);
  EXPECT_EQ(c.record.last_failure_detail().size(), 500u) << "details are capped";
}

TEST(ConfigTable, CountsStatesAndFindsTheBestMedian) {
  ConfigTable t = ThreeConfigs();
  EXPECT_EQ(t.BestIndex(true), -1);
  t.AddOk(0, Ok({5}), "t");
  t.AddOk(2, Ok({3}), "t");
  EXPECT_EQ(t.BestIndex(true), 2);
  EXPECT_EQ(t.BestIndex(false), 0);
  t.at(0).record.set_eliminated(true);
  t.SetState(0, v1::CONFIG_STATE_DONE);
  t.LeaseStarted(1);
  const StateCounts n = t.CountStates();
  EXPECT_EQ(n.done, 1);
  EXPECT_EQ(n.eliminated, 1);
  EXPECT_EQ(n.leased, 1);
  EXPECT_EQ(n.pending, 1);
  EXPECT_EQ(n.infeasible, 0);
}

}  // namespace
}  // namespace fleetsweep
