// The whole agent against a scripted coordinator (FakeCoordinator: a ROUTER socket) over ipc://:
// hello, leases run through a warm session, results re-sent until acknowledged, open session
// keys named in work requests, a worker that serves a new coordinator after a sweep ended, and
// the give-up clock.
#include "worker/agent.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <thread>
#include <zmq.hpp>

#include "common/wire/wire.h"
#include "spdlog/sinks/ringbuffer_sink.h"
#include "spdlog/spdlog.h"
#include "worker/agent/fake_coordinator.h"

namespace fleetsweep {
namespace {

TEST(AgentTest, RunsLeasesInAWarmSessionAndNamesItsKey) {
  RunningAgent w("test", [](AgentOptions* o) {
    o->slots = 1;
    o->prefetch = 0;  // asks for free slots only (the prefetch test below covers the other case)
  });
  FakeCoordinator& coord = w.coord();
  ASSERT_TRUE(w.Connect());
  auto req = coord.NextOf(v1::Envelope::kWorkRequest);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->work_request().free_slots(), 1);
  EXPECT_EQ(req->work_request().open_sessions_size(), 0);  // nothing warm yet
  coord.Lease("L1", "m1", "1");
  auto r1 = coord.NextOf(v1::Envelope::kResults);
  ASSERT_TRUE(r1);
  const v1::Attempt& a1 = r1->results().results(0).attempt();
  ASSERT_TRUE(a1.ok()) << a1.failure_detail();
  EXPECT_EQ(a1.attempt_id(), "L1");
  EXPECT_EQ(a1.worker_id(), "w-test");
  EXPECT_EQ(a1.samples(0).value(), 1.0);
  // Not acknowledged: the result comes again (3 s resend interval).
  auto again = coord.NextOf(v1::Envelope::kResults, 6);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->results().results(0).lease_id(), "L1");
  coord.ResultAck("L1");

  auto req2 = coord.NextOf(v1::Envelope::kWorkRequest);
  ASSERT_TRUE(req2);
  ASSERT_EQ(req2->work_request().open_sessions_size(), 1);
  EXPECT_EQ(req2->work_request().open_sessions(0).params().at("MODEL"), "m1");
  coord.Lease("L2", "m1", "3");
  auto r2 = coord.NextOf(v1::Envelope::kResults);
  ASSERT_TRUE(r2);
  const v1::Attempt& a2 = r2->results().results(0).attempt();
  ASSERT_TRUE(a2.ok()) << a2.failure_detail();
  EXPECT_EQ(Info(a2, "pid"), Info(a1, "pid"));  // the same warm process served both
  EXPECT_EQ(Info(a2, "session.position"), "2");
  coord.ResultAck("L2");
  // Another key needs another process.
  coord.Lease("L3", "m2", "1");
  auto r3 = coord.NextOf(v1::Envelope::kResults);
  ASSERT_TRUE(r3);
  EXPECT_NE(Info(r3->results().results(0).attempt(), "pid"), Info(a1, "pid"));
  EXPECT_EQ(Info(r3->results().results(0).attempt(), "session.position"), "1");
  Status st = w.Stop();
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(w.agent().executions(), 3);
}

TEST(AgentTest, PrefetchedLeaseWaitsNamedInHeartbeatsAndRunsNext) {
  RunningAgent w("prefetch", [](AgentOptions* o) {
    o->slots = 1;
    o->prefetch = 1;
  });
  FakeCoordinator& coord = w.coord();
  ASSERT_TRUE(w.Connect());
  auto req = coord.NextOf(v1::Envelope::kWorkRequest);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->work_request().free_slots(), 2);  // one to run, one to wait
  // Both in one Leases message: P1 runs for 1.5 s, P2 waits behind it.
  coord.Leases({FakeCoordinator::MakeLease("P1", "m1", "1", "slow"),
                FakeCoordinator::MakeLease("P2", "m1", "2")});
  // While P1 runs, heartbeats name P2 as waiting and P1 as held but not waiting.
  bool named_waiting = false;
  for (int i = 0; i < 20 && !named_waiting; ++i) {
    auto hb = coord.NextOf(v1::Envelope::kHeartbeat, 2);
    ASSERT_TRUE(hb);
    const v1::Heartbeat& h = hb->heartbeat();
    if (h.waiting_lease_ids_size() == 0) continue;
    ASSERT_EQ(h.waiting_lease_ids_size(), 1);
    EXPECT_EQ(h.waiting_lease_ids(0), "P2");
    named_waiting = true;
  }
  EXPECT_TRUE(named_waiting);
  auto r1 = coord.NextOf(v1::Envelope::kResults);
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->results().results(0).lease_id(), "P1");
  coord.ResultAck("P1");
  auto r2 = coord.NextOf(v1::Envelope::kResults);
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->results().results(0).lease_id(), "P2");
  EXPECT_TRUE(r2->results().results(0).attempt().ok())
      << r2->results().results(0).attempt().failure_detail();
  EXPECT_EQ(Info(r2->results().results(0).attempt(), "session.position"), "2");
  coord.ResultAck("P2");
  w.Stop();
  EXPECT_EQ(w.agent().executions(), 2);
}

TEST(AgentTest, ServesANewCoordinatorAfterASweepFinished) {
  RunningAgent w("newcoord");
  FakeCoordinator& coord = w.coord();
  ASSERT_TRUE(w.Connect());
  ASSERT_TRUE(coord.NextOf(v1::Envelope::kWorkRequest));
  v1::Envelope done;
  done.mutable_no_work()->set_sweep_finished(true);
  done.mutable_no_work()->set_retry_after_seconds(0.1);
  coord.Send(done);
  // A restarted coordinator (new id) does not know the worker: Reject, hello, ack.
  v1::Envelope reject;
  reject.mutable_reject()->set_reason("unknown worker");
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  coord.Send(reject);
  ASSERT_TRUE(coord.NextOf(v1::Envelope::kHello));
  coord.Ack("c2");
  EXPECT_TRUE(coord.NextOf(v1::Envelope::kWorkRequest, 5)) << "the worker stayed finished";
}

// --give-up-after counts from the last message heard: a worker far older than S survives a
// coordinator restart (Reject, hello, ack), and a connected worker whose coordinator goes silent
// gives up. Time is a FakeClock moved by the test; it never moves S at once while the worker
// waits for an answer.
TEST(AgentTest, GivesUpAfterSilenceCountedFromTheLastMessage) {
  std::string ep = Endpoint() + "g";
  FakeCoordinator coord(ep);
  FakeClock clock;
  AgentOptions o;
  o.coordinator = ep;
  o.worker_id = "w-giveup";
  o.give_up_after_seconds = 10;
  o.clock = &clock;
  std::atomic<bool> stop{false};
  WorkerAgent agent(o);
  auto run = std::async(std::launch::async, [&] { return agent.Run(stop); });
  auto still_running = [&] {
    return run.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout;
  };
  ASSERT_TRUE(coord.NextOf(v1::Envelope::kHello));
  coord.Ack("c1");
  v1::Envelope heard;
  heard.mutable_heartbeat_ack();
  for (int i = 0; i < 4; ++i) {  // 32 s of a quiet sweep, a message every 8 s
    clock.Advance(8);
    coord.Send(heard);
    ASSERT_TRUE(coord.NextOf(v1::Envelope::kHeartbeat)) << "worker stopped at round " << i;
  }
  ASSERT_TRUE(still_running());
  // The coordinator restarts: the worker (32 s old, S = 10) is told it is unknown.
  v1::Envelope reject;
  reject.mutable_reject()->set_reason("unknown worker: say hello");
  coord.Send(reject);
  ASSERT_TRUE(coord.NextOf(v1::Envelope::kHello)) << "the worker gave up on the first reject";
  coord.Ack("c2");
  ASSERT_TRUE(coord.NextOf(v1::Envelope::kWorkRequest));
  ASSERT_TRUE(still_running());
  // Then the coordinator goes silent (SIGKILL): S seconds later the connected worker gives up.
  // The work request above may be a retry sent before the agent read the "c2" ack (unanswered
  // requests are re-sent every 2 s of the fake clock); an agent that reads the ack only after
  // this Advance counts S from then, so a second Advance is allowed: what is tested is that a
  // silent coordinator is given up on, not the thread's timing (it flaked under a loaded -j2).
  bool gave_up = false;
  for (int advance = 0; advance < 2 && !gave_up; ++advance) {
    clock.Advance(11);
    gave_up = run.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  }
  if (!gave_up) {
    stop = true;
    run.wait();
    FAIL() << "a connected worker never gave up on a silent coordinator";
  }
  Status st = run.get();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
}

// Processes of this test process: those whose cmdline is exactly `argv`, and zombie children.
std::vector<int> ProcessesRunning(const std::vector<std::string>& argv) {
  std::string want;
  for (const auto& a : argv) want += a + '\0';
  std::vector<int> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (cmd == want) out.push_back(std::stoi(name));
  }
  return out;
}

std::vector<int> ZombieChildren() {
  std::vector<int> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 4 >= stat.size()) continue;
    if (std::stoi(stat.substr(close + 4)) == getpid() && stat[close + 2] == 'Z') {
      out.push_back(std::stoi(name));
    }
  }
  return out;
}

// A benchmark whose grandchild calls setsid (escaping the process-group kill) and outlives it:
// by the time the result arrives, the grandchild is gone, and no zombie is left, execution after
// execution.
TEST(AgentTest, KillsWhatEscapesTheProcessGroupAndLeavesNoZombies) {
  const std::string duration = "1000." + std::to_string(getpid());  // unique: finds the sleep
  const std::string spec = "sweep: agent-escape\nexecutor:\n  type: exec\n  command: [python3, \"" +
                           SourceDir() + "/tests/data/bench/escape_bench.py\", \"" + duration +
                           "\"]\n  timeout: 30\nparameters:\n  N: [1, 2, 3]\n"
                           "metrics:\n  - {name: time_ms, goal: minimize}\n";
  RunningAgent w("escape", [](AgentOptions* o) { o->prefetch = 0; });
  FakeCoordinator& coord = w.coord();
  ASSERT_TRUE(w.Connect("c1", /*with_spec=*/false));
  bool spec_sent = false;
  for (int n = 1; n <= 3; ++n) {
    ASSERT_TRUE(coord.NextOf(v1::Envelope::kWorkRequest));
    v1::Lease l;
    l.set_lease_id("E" + std::to_string(n));
    l.set_sweep("agent-escape");
    l.set_spec_hash(SpecHash(spec));
    l.set_config_key("K-" + std::to_string(n));
    (*l.mutable_params())["N"] = std::to_string(n);
    coord.Leases({l});
    if (!spec_sent) {
      ASSERT_TRUE(coord.NextOf(v1::Envelope::kSpecRequest));
      v1::Envelope e;
      e.mutable_spec()->set_sweep("agent-escape");
      e.mutable_spec()->set_spec_hash(SpecHash(spec));
      e.mutable_spec()->set_spec_yaml(spec);
      coord.Send(e);
      spec_sent = true;
    }
    auto r = coord.NextOf(v1::Envelope::kResults);
    ASSERT_TRUE(r);
    const v1::Attempt& a = r->results().results(0).attempt();
    EXPECT_TRUE(a.ok()) << a.failure_detail();
    EXPECT_EQ(ProcessesRunning({"sleep", duration}), std::vector<int>{})
        << "the setsid grandchild of execution " << n << " outlived it";
    EXPECT_EQ(ZombieChildren(), std::vector<int>{}) << "after execution " << n;
    coord.ResultAck(l.lease_id());
  }
}

// A lease whose spec the worker does not have: it asks once (however many leases name the
// spec), caches the parsed spec (the same launcher, so the same warm process serves them all),
// and never asks again.
TEST(AgentTest, AsksForAnUnknownSpecOnceAndKeepsItParsed) {
  RunningAgent w("spec", [](AgentOptions* o) {
    o->slots = 1;
    o->prefetch = 1;
  });
  FakeCoordinator& coord = w.coord();
  ASSERT_TRUE(w.Connect("c1", /*with_spec=*/false));
  ASSERT_TRUE(coord.NextOf(v1::Envelope::kWorkRequest));
  coord.Leases(
      {FakeCoordinator::MakeLease("S1", "m1", "1"), FakeCoordinator::MakeLease("S2", "m1", "2")});
  auto ask = coord.NextOf(v1::Envelope::kSpecRequest);
  ASSERT_TRUE(ask);
  EXPECT_EQ(ask->spec_request().spec_hash(), SpecHash(SpecText()));
  v1::Envelope spec;
  *spec.mutable_spec() = FakeCoordinator::Spec();
  coord.Send(spec);
  std::map<std::string, std::string> pid;
  for (int i = 0; i < 2; ++i) {
    auto r = coord.NextOf(v1::Envelope::kResults);
    ASSERT_TRUE(r);
    for (const auto& res : r->results().results()) {
      ASSERT_TRUE(res.attempt().ok()) << res.attempt().failure_detail();
      pid[res.lease_id()] = Info(res.attempt(), "pid");
      coord.ResultAck(res.lease_id());
    }
    if (pid.size() == 2) break;
  }
  ASSERT_EQ(pid.size(), 2u);
  coord.Lease("S3", "m1", "3");
  auto r3 = coord.NextOf(v1::Envelope::kResults);
  ASSERT_TRUE(r3);
  EXPECT_EQ(r3->results().results(0).lease_id(), "S3");
  EXPECT_EQ(Info(r3->results().results(0).attempt(), "pid"), pid["S1"]);
  EXPECT_EQ(pid["S2"], pid["S1"]) << "one parsed spec, one launcher, one warm session";
  EXPECT_EQ(coord.Seen(v1::Envelope::kSpecRequest), 1) << "asked once";
  w.Stop();
  EXPECT_EQ(w.agent().executions(), 3);
}

// The coordinator answers with a spec of another hash (the lease came from elsewhere): an error
// naming both hashes; the lease is dropped (not run, no longer waiting), its room asked for again.
TEST(AgentTest, SpecHashMismatchIsAnErrorNamingBothHashes) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100);
  spdlog::default_logger()->sinks().push_back(sink);
  RunningAgent w("mismatch", [](AgentOptions* o) {
    o->slots = 1;
    o->prefetch = 0;
  });
  FakeCoordinator& coord = w.coord();
  ASSERT_TRUE(w.Connect("c1", /*with_spec=*/false));
  ASSERT_TRUE(coord.NextOf(v1::Envelope::kWorkRequest));
  v1::Lease foreign = FakeCoordinator::MakeLease("X1", "m1", "1");
  foreign.set_spec_hash("00000000deadbeef");
  coord.Leases({foreign});
  auto ask = coord.NextOf(v1::Envelope::kSpecRequest);
  ASSERT_TRUE(ask);
  EXPECT_EQ(ask->spec_request().spec_hash(), "00000000deadbeef");
  v1::Envelope spec;
  *spec.mutable_spec() = FakeCoordinator::Spec();
  coord.Send(spec);
  // The dropped lease frees its room: the worker asks for a lease again and names none waiting.
  auto again = coord.NextOf(v1::Envelope::kWorkRequest, 6);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->work_request().free_slots(), 1);
  auto hb = coord.NextOf(v1::Envelope::kHeartbeat);
  ASSERT_TRUE(hb);
  EXPECT_EQ(hb->heartbeat().waiting_lease_ids_size(), 0);
  w.Stop();
  spdlog::default_logger()->sinks().pop_back();
  EXPECT_EQ(w.agent().executions(), 0);
  EXPECT_EQ(coord.Seen(v1::Envelope::kResults), 0);
  bool named = false;
  for (const std::string& line : sink->last_formatted()) {
    if (line.find("spec hash mismatch") != std::string::npos &&
        line.find("00000000deadbeef") != std::string::npos &&
        line.find(SpecHash(SpecText())) != std::string::npos) {
      named = true;
    }
  }
  EXPECT_TRUE(named) << "the error names both hashes";
}

// A coordinator of wire protocol version 1 answers the hello with a version-1 Reject: the worker
// stops with an error naming both versions instead of saying hello forever.
TEST(AgentTest, StopsWithAnErrorWhenTheCoordinatorSpeaksAnotherVersion) {
  RunningAgent w("version");
  FakeCoordinator& coord = w.coord();
  ASSERT_TRUE(coord.NextOf(v1::Envelope::kHello));
  v1::Envelope old;
  old.set_protocol_version(1);
  old.mutable_reject()->set_reason(
      "wire: protocol version 2 is not supported (this build speaks 1)");
  std::string bytes;
  ASSERT_TRUE(old.SerializeToString(&bytes));
  coord.SendRaw(bytes);
  Status st = w.Join();  // returns by itself: `stop` is never set
  EXPECT_TRUE(w.returned());
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("protocol version 1"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("speaks version 2"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace fleetsweep
