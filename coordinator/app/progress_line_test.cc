#include "coordinator/app/progress_line.h"

#include <gtest/gtest.h>

#include "common/store/execution_count.h"
#include "common/store/file_store.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

const char* kSpec = R"(sweep: prog
executor: {type: exec, command: ["/bin/true"], timeout: 5}
parameters:
  A: {values: [1, 2, 3]}
repetitions: {min: 3, max: 3, target_rel_ci: 0.5, max_failures: 3, deterministic_failures: 1}
metrics: [{name: t, goal: minimize, unit: ms}]
)";

v1::Result Answer(const v1::Lease& l, bool ok) {
  v1::Result r;
  r.set_lease_id(l.lease_id());
  r.set_sweep(l.sweep());
  auto* a = r.mutable_attempt();
  a->set_config_key(l.config_key());
  a->set_attempt_id(l.lease_id());
  a->set_ok(ok);
  if (ok) {
    auto* s = a->add_samples();
    s->set_metric("t");
    s->set_value(1.0);
  } else {
    a->set_failure_class(v1::FAILURE_CLASS_EXIT_CODE);
  }
  return r;
}

TEST(ProgressLine, CountsExecutionsAndEstimatesFromThem) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  auto store = FileStore::Open(dir->Join("store"));
  ASSERT_TRUE(store.ok());
  auto spec = ParseSpecText(kSpec, "p.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  SchedulerOptions o;
  o.epoch = "e1";
  Scheduler s(*spec, o, store->get());
  ASSERT_TRUE(s.Init().ok());
  EXPECT_EQ(RemainingExecutions(s), 9);  // 3 configurations x repetitions.min 3

  ProgressLine line(true, /*tty=*/false);
  line.Update(s, 0.0, true);
  EXPECT_NE(line.last().find("0/3 finished (0 ok, 0 infeasible)"), std::string::npos)
      << line.last();
  EXPECT_NE(line.last().find("ETA ?"), std::string::npos) << line.last();

  v1::Hello h;
  h.mutable_node()->set_node("w");
  h.mutable_node()->set_slots(1);
  s.OnHello("w", h, 0);
  // One execution per simulated second; the first configuration fails (deterministic: 1).
  double now = 0;
  for (int i = 0; i < 20 && s.GetProgress().infeasible == 0; ++i) {
    for (const auto& l : s.OnWorkRequest("w", 1, now)) {
      ASSERT_TRUE(s.OnResult("w", Answer(l, !(l.params().at("A") == "1")), now).ok());
    }
    now += 1;
  }
  line.Update(s, now, true);
  const std::string text = line.last();
  EXPECT_NE(text.find("1 infeasible"), std::string::npos) << text;
  // ETA from executions: the remaining ones at the observed rate, not from configurations.
  const int64_t remaining = RemainingExecutions(s);
  EXPECT_GT(remaining, 0);
  EXPECT_LT(remaining, 9);
  EXPECT_EQ(text.find("ETA ?"), std::string::npos) << text;
  EXPECT_NE(text.find("exec/s"), std::string::npos);
  // Executions as every view counts them (execution_count.h): all, failed ones apart.
  const Progress p = s.GetProgress();
  EXPECT_GT(p.attempts_failed, 0);
  EXPECT_NE(text.find(ExecutionsText({p.attempts_ok + p.attempts_failed, p.attempts_failed})),
            std::string::npos)
      << text;
  EXPECT_EQ(FormatDuration(7), "7s");
  EXPECT_EQ(FormatDuration(185), "3m05s");
  EXPECT_EQ(FormatDuration(9000), "2.5h");
}

}  // namespace
}  // namespace fleetsweep
