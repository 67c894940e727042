// AdaptiveRepetitions on its own, over a ConfigTable fed by hand: retries one at a time,
// infeasible rules, the stage-1 barrier, stage 2 for the contenders of the lead only, and the
// switch that turns stage 2 off.
#include "coordinator/scheduler/repetition.h"

#include <gtest/gtest.h>

namespace fleetsweep {
namespace {

SweepSpec Spec(const std::string& reps) {
  auto s = ParseSpecText(
      "sweep: r\nexecutor: {type: exec, command: [\"/bin/true\"], timeout: 5}\n"
      "parameters:\n  A: {values: [0, 1, 2]}\nrepetitions: " +
          reps + "\nmetrics: [{name: t, goal: minimize}]\n",
      "r.yaml");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : SweepSpec{};
}

struct Fixture {
  SweepSpec spec;
  ConfigTable table;
  AdaptiveRepetitions reps;

  Fixture(const std::string& r, bool extend, int configs = 3)
      : spec(Spec(r)), reps(spec, &table, extend, 1) {
    for (int i = 0; i < configs; ++i) {
      ConfigState c;
      c.params["A"] = i;
      c.record.set_config_key("k" + std::to_string(i));
      c.record.set_state(v1::CONFIG_STATE_PENDING);
      table.Add(std::move(c));
    }
    reps.StartBarrier();
  }
  // One counted ok execution of configuration i: three samples around `value`.
  void Execute(int i, double value) {
    v1::Attempt a;
    a.set_ok(true);
    for (double f : {0.999, 1.0, 1.001}) {
      auto* s = a.add_samples();
      s->set_metric("t");
      s->set_value(value * f);
    }
    reps.OnOkCounted(i, table.AddOk(i, a, "t"));
  }
  void Fail(int i, v1::FailureClass cls) {
    v1::Attempt a;
    a.set_failure_class(cls);
    table.AddFailure(i, a);
  }
  void Settle(int i) { table.SetState(i, reps.Decide(i)); }
};

TEST(AdaptiveRepetitions, FailuresAreRetriedOneAtATimeUpToTheRules) {
  Fixture f("{min: 2, max: 4, max_failures: 3, deterministic_failures: 2}", true);
  EXPECT_TRUE(f.reps.NeedsWork(0));
  f.table.LeaseStarted(0);
  EXPECT_TRUE(f.reps.NeedsWork(0)) << "no failure yet: executions fan out to min";
  f.Fail(0, v1::FAILURE_CLASS_WRONG_RESULT);
  EXPECT_FALSE(f.reps.NeedsWork(0)) << "after a failure, one at a time";
  f.table.LeaseEnded(0);
  EXPECT_EQ(f.reps.Decide(0), v1::CONFIG_STATE_PENDING);
  f.Fail(0, v1::FAILURE_CLASS_WRONG_RESULT);
  EXPECT_EQ(f.reps.Decide(0), v1::CONFIG_STATE_INFEASIBLE) << "two identical deterministic";
  f.Fail(1, v1::FAILURE_CLASS_TIMEOUT);
  f.Fail(1, v1::FAILURE_CLASS_TIMEOUT);
  EXPECT_EQ(f.reps.Decide(1), v1::CONFIG_STATE_PENDING) << "transient failures are retried";
  f.Fail(1, v1::FAILURE_CLASS_TIMEOUT);
  EXPECT_EQ(f.reps.Decide(1), v1::CONFIG_STATE_INFEASIBLE) << "up to max_failures";
}

TEST(AdaptiveRepetitions, StageOneEndsForAllAtOnce) {
  Fixture f("{min: 2, max: 4, target_rel_ci: 0.5}", true, 2);
  f.Execute(0, 10);
  f.Execute(0, 10.1);
  EXPECT_EQ(f.reps.Decide(0), v1::CONFIG_STATE_PENDING) << "held until every config did min";
  EXPECT_FALSE(f.reps.TakeBarrierPassed());
  f.Execute(1, 20);
  f.Execute(1, 20.2);
  EXPECT_TRUE(f.reps.TakeBarrierPassed());
  EXPECT_FALSE(f.reps.TakeBarrierPassed()) << "reported once";
  EXPECT_EQ(f.reps.leader(), 0);
  EXPECT_EQ(f.reps.Decide(1), v1::CONFIG_STATE_DONE) << "clearly apart from the leader";
}

TEST(AdaptiveRepetitions, ContendersForTheLeadRunToMaxOthersStopAtMin) {
  Fixture f("{min: 3, max: 8, target_rel_ci: 0.5}", true);
  const double values[3][3] = {{10.0, 10.05, 9.97}, {10.02, 9.96, 10.04}, {13.0, 13.05, 12.96}};
  for (int i = 0; i < 3; ++i) {
    for (double v : values[i]) f.Execute(i, v);
  }
  ASSERT_TRUE(f.reps.TakeBarrierPassed());
  for (int i = 0; i < 3; ++i) f.Settle(i);
  EXPECT_TRUE(f.table.at(0).extended);
  EXPECT_TRUE(f.table.at(1).extended);
  EXPECT_FALSE(f.table.at(2).extended);
  EXPECT_TRUE(f.reps.NeedsWork(0));
  EXPECT_TRUE(f.reps.NeedsWork(1));
  EXPECT_EQ(f.table.at(2).record.state(), v1::CONFIG_STATE_DONE);
  EXPECT_FALSE(f.reps.NeedsWork(2));
  EXPECT_FALSE(f.table.Finished());
}

TEST(AdaptiveRepetitions, WithoutStageTwoATightConfigurationIsDoneAtMin) {
  Fixture f("{min: 3, max: 8, target_rel_ci: 0.5}", false, 2);
  for (double v : {10.0, 10.05, 9.97}) f.Execute(0, v);
  EXPECT_EQ(f.reps.Decide(0), v1::CONFIG_STATE_DONE) << "no barrier, no extension";
  EXPECT_FALSE(f.table.at(0).extended);
}

}  // namespace
}  // namespace fleetsweep
