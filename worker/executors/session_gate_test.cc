// The device's timing gate in persistent sessions (docs/executors.md "Time alone, prepare
// together"): two slots on one device never time at once, device work in prepare and before ready
// holds the gate, prepare-and-run in one request only while the device is not shared.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "worker/executors/session_test_support.h"

namespace fleetsweep {
namespace {

using namespace session_testing;  // NOLINT(build/namespaces): the tests' shared helpers

// Two sessions on one device prepare in parallel but never time at the same time.
TEST_F(SessionTest, OneDeviceNeverTimesTwoExecutionsAtOnce) {
  fs::path log = fs::temp_directory_path() / ("fs-timing-" + std::to_string(getpid()) + ".log");
  fs::remove(log);
  auto launcher = Make(Section("env: {FAKE_TIMING_LOG: \"" + log.string() + "\"}\n"));
  TimingGate gate;
  auto work = [&](int slot) {
    auto s = launcher->Open(Request("slow", "x"));
    for (int i = 0; i < 6; ++i) {
      ExecutionRequest r = Request("slow", "s" + std::to_string(slot) + "-" + std::to_string(i));
      r.params["SLEEP_MS"] = Value::FromText("20");
      EXPECT_TRUE(s->Execute(r, &gate).ok());
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  const LoggedSections sections = ReadTimingLog(log);
  ASSERT_EQ(sections.lines, 24u);
  EXPECT_EQ(sections.most_open, 1) << "two timed sections overlapped";
  fs::remove(log);
}

// A benchmark that offers run_after_prepare gets one request per execution (prepare with
// "run": true) while its slot is the device's only one; with a second slot on the device it gets
// the two-step prepare/run again, so that the other slot can prepare while this one times.
TEST_F(SessionTest, PrepareAndRunInOneRequestOnlyWhileTheDeviceIsNotShared) {
  auto launcher = Make(Section("env: {FAKE_RUN_AFTER_PREPARE: \"1\"}\n"));
  auto session = launcher->Open(Request("ok", "r0"));
  TimingGate gate;
  gate.AddSharer();
  for (int i = 1; i <= 3; ++i) {
    ExecutionRequest r = Request("ok", "r" + std::to_string(i));
    r.params["VALUE"] = Value::FromText(std::to_string(i));
    if (i == 3) r.params["DEVICE_PREP_MS"] = Value::FromText("5");  // granted at once
    v1::Attempt a = session->Execute(r, &gate);
    ASSERT_TRUE(a.ok()) << a.failure_detail() << a.stderr_tail();
    ASSERT_EQ(a.samples_size(), 3);
    EXPECT_EQ(a.samples(0).value(), i);
    EXPECT_EQ(Info(a, "session.run_after_prepare"), "true");
  }
  gate.AddSharer();  // a second slot on the device
  ExecutionRequest r = Request("ok", "r4");
  v1::Attempt a = session->Execute(r, &gate);
  ASSERT_TRUE(a.ok()) << a.failure_detail() << a.stderr_tail();
  EXPECT_EQ(Info(a, "session.run_after_prepare"), "");
  EXPECT_EQ(Info(a, "session.position"), "4");  // the same process served all four
  EXPECT_EQ(gate.acquisitions(), 4);
}

// Device work in prepare ("device" request) is exclusive too: with two slots on one device, no
// prepare-time device section overlaps another slot's device section or timed section.
TEST_F(SessionTest, DeviceWorkInPrepareNeverOverlapsAnotherSlotsTiming) {
  fs::path log = fs::temp_directory_path() / ("fs-device-" + std::to_string(getpid()) + ".log");
  fs::remove(log);
  auto launcher = Make(Section("env: {FAKE_TIMING_LOG: \"" + log.string() + "\"}\n"));
  TimingGate gate;
  std::atomic<int> ok{0};
  auto work = [&](int slot) {
    auto s = launcher->Open(Request("slow", "x"));
    for (int i = 0; i < 5; ++i) {
      ExecutionRequest r = Request("slow", "d" + std::to_string(slot) + "-" + std::to_string(i));
      r.params["SLEEP_MS"] = Value::FromText("15");
      r.params["DEVICE_PREP_MS"] = Value::FromText("15");
      v1::Attempt a = s->Execute(r, &gate);
      if (a.ok()) ++ok;
      EXPECT_GE(std::stod(a.info().at("exec.gate_wait_seconds")), 0.0);
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_EQ(ok.load(), 10);
  const LoggedSections sections = ReadTimingLog(log);
  ASSERT_EQ(sections.lines, 40u);  // 10 executions x (device section + timed section) x 2
  EXPECT_EQ(sections.most_open, 1) << "a device section overlapped another slot's";
  fs::remove(log);
}

// Device work before ready (a "device" line during the start) holds the device's gate from that
// line to ready: a session starting with device work on a device never overlaps another slot's
// timed part, and its device_granted names the session.
TEST_F(SessionTest, DeviceWorkBeforeReadyHoldsTheGateUntilReady) {
  fs::path log = fs::temp_directory_path() / ("fs-startdev-" + std::to_string(getpid()) + ".log");
  fs::remove(log);
  auto plain = Make(Section("env: {FAKE_TIMING_LOG: \"" + log.string() + "\"}\n"));
  auto device_start = Make(
      Section("env: {FAKE_TIMING_LOG: \"" + log.string() + "\", FAKE_START_DEVICE_MS: \"40\"}\n"));
  TimingGate gate;
  std::atomic<int> ok{0};
  std::vector<std::string> start_infos(2), granted_to(2);
  auto work = [&](int slot) {
    // Slot 0 times over and over; slot 1 opens three sessions that each start with device work.
    for (int i = 0; i < 6; ++i) {
      const bool starter = slot == 1;
      auto s = (starter ? device_start : plain)->Open(Request("slow", "x"));
      ExecutionRequest r = Request("slow", "s" + std::to_string(slot) + "-" + std::to_string(i));
      r.params["SLEEP_MS"] = Value::FromText("10");
      v1::Attempt a = s->Execute(r, &gate);
      if (a.ok()) ++ok;
      if (starter) {
        start_infos[1] = Info(a, "session.start_gate_wait_seconds");
        granted_to[1] = Info(a, "start_device_granted_to");
        EXPECT_EQ(granted_to[1], Info(a, "session.id"));
        EXPECT_GE(std::stod(Info(a, "session.start_seconds")), 0.04);
      }
      if (starter && i == 2) break;
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_EQ(ok.load(), 9);
  EXPECT_FALSE(start_infos[1].empty()) << "the start's gate wait is reported";
  EXPECT_FALSE(granted_to[1].empty());
  const LoggedSections sections = ReadTimingLog(log);
  ASSERT_EQ(sections.lines, 24u);  // 9 timed sections + 3 start-time device sections, 2 lines each
  EXPECT_EQ(sections.most_open, 1) << "device work before ready overlapped another slot's timing";
  fs::remove(log);
}

// A start that asks for the device while the gate cannot be had (the slot is cancelled) fails
// the attempt as cancelled, and the process is gone.
TEST_F(SessionTest, ACancelledWaitForTheDeviceBeforeReadyEndsTheStart) {
  auto launcher = Make(Section("env: {FAKE_START_DEVICE_MS: \"10\"}\n"));
  TimingGate gate;
  std::atomic<bool> cancel{false};
  std::optional<TimingHold> other;
  other.emplace(&gate, nullptr);  // another slot holds the device
  ExecutionRequest r = Request("ok", "c-1");
  r.cancel = &cancel;
  auto s = launcher->Open(r);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
    gate.WakeAll();
  });
  v1::Attempt a = s->Execute(r, &gate);
  canceller.join();
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_SIGNAL) << a.failure_detail();
  EXPECT_NE(a.failure_detail().find("session start"), std::string::npos) << a.failure_detail();
  EXPECT_FALSE(s->Reusable());
}

// A device request outside prepare is bad input: dropped, the execution and the session go on.
TEST_F(SessionTest, ADeviceRequestDuringRunIsDropped) {
  auto launcher = Make(Section());
  auto s = launcher->Open(Request("ok", "x"));
  TimingGate gate;
  ExecutionRequest r = Request("ok", "dr-1");
  r.params["DEVICE_IN_RUN"] = Value::FromText("1");
  v1::Attempt a1 = s->Execute(r, &gate);
  ASSERT_TRUE(a1.ok()) << a1.failure_detail();
  v1::Attempt a2 = s->Execute(Request("ok", "dr-2"), &gate);
  ASSERT_TRUE(a2.ok()) << a2.failure_detail();
  EXPECT_EQ(Info(a2, "session.position"), "2") << "the session survived";
  EXPECT_EQ(Info(a2, "pid"), Info(a1, "pid"));
}

}  // namespace
}  // namespace fleetsweep
