// The agent's pacing against a scripted coordinator (FakeCoordinator over ipc://): short
// executions asked for and reported in batches, and with several slots a waiting lease that goes
// to the first slot that frees rather than behind a long execution (worker/agent/pacing.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "worker/agent/fake_coordinator.h"

namespace fleetsweep {
namespace {

// Short executions: after the first, the slot holds more leases than --prefetch (it asks for
// them in one request), runs them back to back in one warm process, and reports the finished
// ones together in one Results message (here: the batch ends when the slot has nothing left).
TEST(AgentTest, ShortExecutionsAreAskedForAndReportedInBatches) {
  RunningAgent w("batches", [](AgentOptions* o) {
    o->slots = 1;
    o->prefetch = 1;
    o->hold_seconds = 60;   // any execution is short against this: the most ahead (16)
    o->flush_seconds = 60;  // a batch ends full or when the slot runs dry
    o->flush_count = 16;
  });
  FakeCoordinator& coord = w.coord();
  ASSERT_TRUE(w.Connect());
  auto req = coord.NextOf(v1::Envelope::kWorkRequest);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->work_request().free_slots(), 2);  // nothing observed yet: 1 + --prefetch
  coord.Lease("B0", "m1", "1");
  auto r0 = coord.NextOf(v1::Envelope::kResults);
  ASSERT_TRUE(r0);
  ASSERT_EQ(r0->results().results_size(), 1);  // the slot ran dry: reported at once
  coord.ResultAck("B0");
  auto req2 = coord.NextOf(v1::Envelope::kWorkRequest);
  ASSERT_TRUE(req2);
  EXPECT_EQ(req2->work_request().free_slots(), 17);  // 1 running + 16 ahead, none held
  std::vector<v1::Lease> leases;
  for (int i = 1; i <= 6; ++i) {
    leases.push_back(FakeCoordinator::MakeLease("B" + std::to_string(i), "m1", "2"));
  }
  coord.Leases(leases);
  // One message; two if the slot ran dry after B1, before the loop had queued B2 behind it.
  int messages = 0;
  std::vector<v1::Result> got = CollectResults(coord, 6, /*ack=*/false, &messages);
  EXPECT_LE(messages, 2);
  ASSERT_EQ(got.size(), 6u);
  std::string pid;
  for (int i = 0; i < 6; ++i) {
    const v1::Attempt& a = got[i].attempt();
    EXPECT_EQ(got[i].lease_id(), "B" + std::to_string(i + 1));  // in order
    EXPECT_TRUE(a.ok()) << a.failure_detail();
    EXPECT_EQ(Info(a, "session.position"), std::to_string(i + 2));
    if (i == 0) pid = Info(a, "pid");
    EXPECT_EQ(Info(a, "pid"), pid);  // one warm process served them all
  }
  for (int i = 1; i <= 6; ++i) coord.ResultAck("B" + std::to_string(i));
  w.Stop();
  EXPECT_EQ(w.agent().executions(), 7);
}

// With several slots and executions long against the hold time, a waiting lease is not bound to
// a busy slot: it goes to the first slot that frees (here the fast one), not behind the slow one.
TEST(AgentTest, WithSeveralSlotsAWaitingLeaseGoesToTheFirstSlotThatFrees) {
  RunningAgent w("firstfree", [](AgentOptions* o) {
    o->slots = 2;
    o->prefetch = 1;
    o->hold_seconds = 1e-6;  // every execution is long against it: Pacing holds --prefetch only
  });
  FakeCoordinator& coord = w.coord();
  ASSERT_TRUE(w.Connect());
  ASSERT_TRUE(coord.NextOf(v1::Envelope::kWorkRequest));
  // Warm both slots (each gets an open session for m1).
  coord.Leases(
      {FakeCoordinator::MakeLease("A1", "m1", "1"), FakeCoordinator::MakeLease("A2", "m1", "2")});
  ASSERT_EQ(CollectResults(coord, 2, /*ack=*/true).size(), 2u);
  // S (1.5 s) and F (fast) take the two slots; W waits and must run after F, long before S ends.
  coord.Leases({FakeCoordinator::MakeLease("S", "m1", "1", "slow"),
                FakeCoordinator::MakeLease("F", "m1", "2"),
                FakeCoordinator::MakeLease("W", "m1", "3")});
  std::vector<v1::Result> order = CollectResults(coord, 3, /*ack=*/true);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order.back().lease_id(), "S") << "W waited behind the slow execution";
  w.Stop();
  EXPECT_EQ(w.agent().executions(), 5);
}

}  // namespace
}  // namespace fleetsweep
