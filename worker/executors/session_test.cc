// Sessions against real processes: tests/data/bench/fake_session_bench.py misbehaves on command
// (hangs, crashes mid-execution, dies before ready, prints after its end line, ignores its stdin
// closing). Every rule of persistent_session.h is checked here.
#include "worker/executors/session.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "tests/support/source_dir.h"
#include "worker/executors/persistent_session.h"

namespace fleetsweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using fleetsweep::testing::SourceDir;

// The fake benchmark's section. A generous timeout by default: on a loaded 2-core CI machine a
// Python start can take seconds; the timeout tests set their own short one.
std::string Section(const std::string& extra = "", const std::string& session_extra = "",
                    int timeout = 30) {
  return "type: exec\ncommand: [python3, \"" + SourceDir() +
         "/tests/data/bench/fake_session_bench.py\", \"{MODEL}\"]\ntimeout: " +
         std::to_string(timeout) + "\n" + extra + "session: {mode: persistent" + session_extra +
         "}\n";
}

ExecutionRequest Request(const std::string& act, const std::string& id,
                         const std::string& model = "m1") {
  ExecutionRequest r;
  r.params["ACT"] = Value::FromText(act);
  r.params["MODEL"] = Value::FromText(model);
  r.params["VARIANT"] = Value::FromText(act);
  r.attempt_id = id;
  r.timeout_seconds = 30;
  return r;
}

std::string Info(const v1::Attempt& a, const std::string& key) {
  auto it = a.info().find(key);
  return it == a.info().end() ? "" : it->second;
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

bool GoneWithin(pid_t pid, double seconds) {
  auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (!Alive(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !Alive(pid);
}

// Reads a FAKE_TIMING_LOG ("<pid> start|end <ns>" lines): how many lines it holds, and the most
// sections open at once.
struct LoggedSections {
  size_t lines = 0;
  int most_open = 0;
};
LoggedSections ReadTimingLog(const fs::path& log) {
  std::ifstream f(log);
  std::string pid, what;
  long long ns;
  std::vector<std::pair<long long, int>> events;
  while (f >> pid >> what >> ns) events.emplace_back(ns, what == "start" ? 1 : -1);
  std::sort(events.begin(), events.end());
  LoggedSections r;
  r.lines = events.size();
  int open = 0;
  for (const auto& [t, d] : events) {
    open += d;
    r.most_open = std::max(r.most_open, open);
  }
  return r;
}

class SessionTest : public ::testing::Test {
 protected:
  std::unique_ptr<Launcher> Make(const std::string& section,
                                 std::vector<std::string> restart = {}) {
    auto l = Launcher::Create(section, restart);
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    return l.ok() ? std::move(l).value() : nullptr;
  }
};

TEST_F(SessionTest, OneProcessServesManyExecutionsInOrder) {
  auto launcher = Make(Section());
  ASSERT_TRUE(launcher->persistent());
  auto session = launcher->Open(Request("ok", "a1"));
  TimingGate gate;
  std::string pid;
  for (int i = 1; i <= 4; ++i) {
    ExecutionRequest r = Request("ok", "a" + std::to_string(i));
    r.params["VALUE"] = Value::FromText(std::to_string(i));
    v1::Attempt a = session->Execute(r, &gate);
    ASSERT_TRUE(a.ok()) << a.failure_detail();
    ASSERT_EQ(a.samples_size(), 3);
    EXPECT_EQ(a.samples(0).value(), i);  // samples belong to their own execution
    EXPECT_EQ(Info(a, "session.position"), std::to_string(i));
    EXPECT_EQ(a.fingerprint(), "fake-ok-" + std::to_string(i));  // this execution's own
    if (i == 1) pid = Info(a, "pid");
    EXPECT_EQ(Info(a, "pid"), pid);          // the same warm process
    EXPECT_EQ(Info(a, "session_pid"), pid);  // info lines before ready reach every attempt
    EXPECT_TRUE(session->Reusable());
    // Only the attempt that started the process says how long the start took; no device was
    // asked for before ready, so no gate wait is reported.
    EXPECT_EQ(Info(a, "session.start_seconds").empty(), i != 1);
    if (i == 1) {
      EXPECT_GT(std::stod(Info(a, "session.start_seconds")), 0.0);
      EXPECT_LE(std::stod(Info(a, "session.start_seconds")), a.duration_seconds());
    }
    EXPECT_EQ(Info(a, "session.start_gate_wait_seconds"), "");
  }
  EXPECT_EQ(gate.acquisitions(), 4);
}

// A benchmark that refuses an execution (an error line) is classified the same in both modes:
// one-shot exits 2; a persistent session says status 2 on its end line and lives on.
TEST_F(SessionTest, AReportedFailureIsClassifiedAsInOneShot) {
  const std::string one_shot_section = "type: exec\ncommand: [python3, \"" + SourceDir() +
                                       "/tests/data/bench/fake_session_bench.py\"]\ntimeout: 30\n";
  auto one_shot = Make(one_shot_section);
  ASSERT_FALSE(one_shot->persistent());
  v1::Attempt o =
      one_shot->Open(Request("refuse", "o1"))->Execute(Request("refuse", "o1"), nullptr);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.failure_class(), v1::FAILURE_CLASS_EXIT_CODE) << o.failure_detail();

  auto launcher = Make(Section());
  auto session = launcher->Open(Request("refuse", "p1"));
  TimingGate gate;
  v1::Attempt p = session->Execute(Request("refuse", "p1"), &gate);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.failure_class(), o.failure_class()) << p.failure_detail();
  EXPECT_NE(p.failure_detail().find("invalid_argument"), std::string::npos) << p.failure_detail();
  EXPECT_NE(p.failure_detail().find("end line"), std::string::npos) << p.failure_detail();
  ASSERT_TRUE(session->Reusable()) << "a refused execution does not end the session";
  v1::Attempt next = session->Execute(Request("ok", "p2"), &gate);
  EXPECT_TRUE(next.ok()) << next.failure_detail();
  EXPECT_EQ(Info(next, "session.position"), "2");
}

TEST_F(SessionTest, KeyIsTemplatedParamsPlusRestartParams) {
  auto launcher = Make(Section(), {"TP"});
  Config c = {{"MODEL", Value::FromText("llama")},
              {"TP", Value::FromText("2")},
              {"BM", Value::FromText("64")}};
  SessionKey k = launcher->KeyFor(c);
  EXPECT_EQ(k.Text(), "MODEL=llama,TP=2");  // BM is sent per execution: not in the key
  c["BM"] = Value::FromText("128");
  EXPECT_TRUE(k.Matches(c));
  c["TP"] = Value::FromText("4");
  EXPECT_FALSE(k.Matches(c));
  auto one_shot = Make("type: exec\ncommand: [\"{FLEETSWEEP_BIN}/x\", \"{BM}\"]\n");
  EXPECT_FALSE(one_shot->persistent());
  EXPECT_TRUE(one_shot->KeyFor(c).params.empty());
}

TEST_F(SessionTest, TimeoutKillsTheSessionAndANewOneServesTheNext) {
  auto launcher = Make(Section("", ", ready_timeout_s: 30", 3));
  auto session = launcher->Open(Request("ok", "a1"));
  v1::Attempt first = session->Execute(Request("ok", "a1"), nullptr);
  ASSERT_TRUE(first.ok()) << first.failure_detail();
  pid_t pid = std::stoi(Info(first, "pid"));
  ExecutionRequest hang = Request("hang", "a2");
  auto t0 = Clock::now();
  v1::Attempt a = launcher->Open(hang)->Execute(hang, nullptr);  // its own session
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_TIMEOUT) << a.failure_detail();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 40.0);
  // The same rule on the warm session: the hang kills it.
  v1::Attempt b = session->Execute(Request("hang", "a3"), nullptr);
  EXPECT_EQ(b.failure_class(), v1::FAILURE_CLASS_TIMEOUT);
  EXPECT_FALSE(session->Reusable());
  EXPECT_TRUE(GoneWithin(pid, 5));
  auto fresh = launcher->Open(Request("ok", "a4"));
  v1::Attempt c = fresh->Execute(Request("ok", "a4"), nullptr);
  ASSERT_TRUE(c.ok()) << c.failure_detail();
  EXPECT_NE(Info(c, "pid"), std::to_string(pid));
  EXPECT_EQ(Info(c, "session.position"), "1");
}

TEST_F(SessionTest, CrashMidExecutionIsChargedToThatExecutionOnly) {
  auto launcher = Make(Section());
  auto session = launcher->Open(Request("ok", "a1"));
  ASSERT_TRUE(session->Execute(Request("ok", "a1"), nullptr).ok());
  v1::Attempt crash = session->Execute(Request("crash", "a2"), nullptr);
  EXPECT_FALSE(crash.ok());
  EXPECT_EQ(crash.failure_class(), v1::FAILURE_CLASS_EXIT_CODE) << crash.failure_detail();
  EXPECT_EQ(crash.exit_code(), 3);
  EXPECT_EQ(crash.samples_size(), 0);  // a failed attempt keeps no samples
  EXPECT_FALSE(session->Reusable());
  auto next = launcher->Open(Request("segv", "a3"));
  v1::Attempt segv = next->Execute(Request("segv", "a3"), nullptr);
  EXPECT_EQ(segv.failure_class(), v1::FAILURE_CLASS_SIGNAL);
  EXPECT_EQ(segv.term_signal(), SIGSEGV);
  v1::Attempt ok = launcher->Open(Request("ok", "a4"))->Execute(Request("ok", "a4"), nullptr);
  EXPECT_TRUE(ok.ok()) << ok.failure_detail();
}

TEST_F(SessionTest, DeathBeforeReadyIsALaunchFailure) {
  auto launcher = Make(Section("env: {FAKE_START: die}\n"));
  v1::Attempt a = launcher->Open(Request("ok", "a1"))->Execute(Request("ok", "a1"), nullptr);
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_LAUNCH);
  EXPECT_NE(a.failure_detail().find("before it said ready"), std::string::npos)
      << a.failure_detail();
  EXPECT_NE(a.stderr_tail().find("dying before ready"), std::string::npos);
  auto silent = Make(Section("env: {FAKE_START: silent}\n", ", ready_timeout_s: 0.5"));
  v1::Attempt s = silent->Open(Request("ok", "b1"))->Execute(Request("ok", "b1"), nullptr);
  EXPECT_EQ(s.failure_class(), v1::FAILURE_CLASS_LAUNCH);
  EXPECT_NE(s.failure_detail().find("did not say ready"), std::string::npos);
}

TEST_F(SessionTest, LinesAfterTheEndLineDoNotReachTheNextExecution) {
  auto launcher = Make(Section());
  auto session = launcher->Open(Request("after_end", "a1"));
  v1::Attempt a = session->Execute(Request("after_end", "a1"), nullptr);
  ASSERT_TRUE(a.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the stray line is out
  v1::Attempt b = session->Execute(Request("ok", "a2"), nullptr);
  ASSERT_TRUE(b.ok()) << b.failure_detail();
  ASSERT_EQ(b.samples_size(), 3);
  for (const auto& s : b.samples()) EXPECT_EQ(s.value(), 1.0);  // never the stray 999
  EXPECT_EQ(Info(b, "session.stray_lines"), "1");
}

TEST_F(SessionTest, PrepareFailureEndsTheExecutionAndKeepsTheSession) {
  auto launcher = Make(Section());
  auto session = launcher->Open(Request("ok", "a1"));
  TimingGate gate;
  v1::Attempt a = session->Execute(Request("prep_fail", "a1"), &gate);
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_NOT_IMPLEMENTED) << a.failure_detail();
  EXPECT_EQ(gate.acquisitions(), 0);  // nothing was timed
  EXPECT_TRUE(session->Reusable());
  EXPECT_TRUE(session->Execute(Request("ok", "a2"), &gate).ok());
}

TEST_F(SessionTest, ProcessIgnoringStdinCloseIsKilledOnRecycle) {
  auto launcher = Make(Section("env: {FAKE_IGNORE_EOF: \"1\"}\n", ", max_executions: 2"));
  auto session = launcher->Open(Request("ok", "a1"));
  v1::Attempt a = session->Execute(Request("ok", "a1"), nullptr);
  ASSERT_TRUE(a.ok());
  pid_t pid = std::stoi(Info(a, "pid"));
  EXPECT_TRUE(session->Reusable());
  ASSERT_TRUE(session->Execute(Request("ok", "a2"), nullptr).ok());
  EXPECT_FALSE(session->Reusable());  // max_executions reached: recycle
  auto t0 = Clock::now();
  session.reset();  // close stdin, wait, SIGTERM (ignored), SIGKILL
  EXPECT_FALSE(Alive(pid));
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 8.0);
}

TEST_F(SessionTest, RestartEverySecondsRecycles) {
  auto launcher = Make(Section("", ", restart_every_s: 3"));
  auto session = launcher->Open(Request("ok", "a1"));
  v1::Attempt a = session->Execute(Request("ok", "a1"), nullptr);
  ASSERT_TRUE(a.ok());
  double age = std::stod(Info(a, "session.age_s"));
  if (age < 2.5) {  // (a very slow start may use the 3 s up)
    EXPECT_TRUE(session->Reusable());
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, 3.2 - age)));
  EXPECT_FALSE(session->Reusable());
}

TEST_F(SessionTest, CancelKillsAtOnce) {
  auto launcher = Make(Section());
  auto session = launcher->Open(Request("hang", "a1"));
  std::atomic<bool> cancel{false};
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ExecutionRequest r = Request("hang", "a1");
  r.cancel = &cancel;
  r.cancel_fd = fds[0];
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
    ssize_t ignored = write(fds[1], "x", 1);
    (void)ignored;
  });
  auto t0 = Clock::now();
  v1::Attempt a = session->Execute(r, nullptr);
  canceller.join();
  close(fds[0]);
  close(fds[1]);
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_SIGNAL);
  EXPECT_EQ(Info(a, "exec.cancelled"), "true");
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 4.0);
  EXPECT_FALSE(session->Reusable());
}

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

TEST_F(SessionTest, SectionErrorsAreClear) {
  auto bad = Launcher::Create("type: exec\ncommand: [x]\nsession: {mode: warm}\n", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("session.mode"), std::string::npos);
  auto file = Launcher::Create(
      "type: exec\ncommand: [x]\noutput: {file: r.json}\nsession: {mode: persistent}\n", {});
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("output.file"), std::string::npos);
}

}  // namespace
}  // namespace fleetsweep
