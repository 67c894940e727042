// Sessions against real processes: tests/data/bench/fake_session_bench.py misbehaves on command
// (hangs, crashes mid-execution, dies before ready, prints after its end line, ignores its stdin
// closing). Every rule of persistent_session.h is checked here and, for the device's timing gate,
// in session_gate_test.cc.
#include "worker/executors/session.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "worker/executors/persistent_session.h"
#include "worker/executors/session_test_support.h"

namespace fleetsweep {
namespace {

using namespace session_testing;  // NOLINT(build/namespaces): the tests' shared helpers

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
