// SelfDir and StopOnSignals on this very process (the signal cases in forked children, so each
// starts with a clear flag and a default disposition).
#include "common/util/process.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util/sigpipe_guard.h"

namespace fleetsweep {
namespace {

TEST(SelfDir, IsTheDirectoryHoldingThisTestBinary) {
  const std::string dir = SelfDir();
  ASSERT_FALSE(dir.empty());
  EXPECT_EQ(dir[0], '/') << dir;
  struct stat st;
  EXPECT_EQ(stat((dir + "/util_process_test").c_str(), &st), 0) << dir;
}

// Runs `body` in a child; returns its exit status (-1 when it died of a signal).
int InChild(void (*body)()) {
  pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void RaiseAndReport(int sig) {
  const std::atomic<bool>& stop = StopOnSignals();
  if (stop.load()) _exit(10);  // set before any signal
  raise(sig);                  // the handler runs before raise returns (same thread)
  _exit(stop.load() ? 0 : 11);
}

TEST(StopOnSignals, SigtermSetsTheFlag) {
  EXPECT_EQ(InChild([] { RaiseAndReport(SIGTERM); }), 0);
}

TEST(StopOnSignals, SigintSetsTheFlag) {
  EXPECT_EQ(InChild([] { RaiseAndReport(SIGINT); }), 0);
}

// Armed: the first signal only sets the flag (the process winds down), the second ends it at once
// with the armed code, whichever of SIGINT and SIGTERM each is.
TEST(ExitOnSecondStopSignal, TheFirstSignalStopsTheSecondExits) {
  EXPECT_EQ(InChild([] {
              const std::atomic<bool>& stop = StopOnSignals();
              ExitOnSecondStopSignal(42, "second\n");
              raise(SIGINT);
              if (!stop.load()) _exit(11);
              raise(SIGTERM);
              _exit(12);  // not reached: the second signal exited
            }),
            42);
  // Not armed: a second signal only sets the flag again.
  EXPECT_EQ(InChild([] {
              const std::atomic<bool>& stop = StopOnSignals();
              raise(SIGINT);
              raise(SIGINT);
              _exit(stop.load() ? 0 : 11);
            }),
            0);
  // Armed, one signal: the process goes on.
  EXPECT_EQ(InChild([] {
              const std::atomic<bool>& stop = StopOnSignals();
              ExitOnSecondStopSignal(42, nullptr);
              raise(SIGTERM);
              _exit(stop.load() ? 0 : 11);
            }),
            0);
}

TEST(StopOnSignals, SigpipeNeitherKillsNorStops) {
  EXPECT_EQ(InChild([] {
              const std::atomic<bool>& stop = StopOnSignals();
              raise(SIGPIPE);
              _exit(stop.load() ? 12 : 0);
            }),
            0);
}

// Writes to a pipe without a reader under the guard; exits 2x on what went wrong.
void WriteToADeadPipe() {
  int fds[2];
  if (pipe(fds) != 0) _exit(20);
  close(fds[0]);
  int err = 0;
  {
    ScopedSigpipeGuard guard;
    if (write(fds[1], "x", 1) != -1) _exit(21);
    err = errno;
  }
  close(fds[1]);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  if (sigismember(&pending, SIGPIPE) == 1) _exit(22);  // swallowed, not left pending
  if (err != EPIPE) _exit(23);
}

// A write to a pipe whose reader is gone: under the guard it fails with EPIPE and the process
// lives, both while SIGPIPE has its default disposition (the guard blocks and swallows it) and
// after StopOnSignals ignores it (the guard then does nothing).
TEST(SigpipeGuard, AWriteToADeadPipeIsEpipeWithOrWithoutStopOnSignals) {
  EXPECT_EQ(InChild(WriteToADeadPipe), 0);
  EXPECT_EQ(InChild([] {
              StopOnSignals();
              WriteToADeadPipe();
            }),
            0);
  // The control: without the guard and with the default disposition, SIGPIPE kills.
  EXPECT_EQ(InChild([] {
              int fds[2];
              if (pipe(fds) != 0) _exit(20);
              close(fds[0]);
              static_cast<void>(write(fds[1], "x", 1));
            }),
            -1);
}

TEST(StopOnSignals, WithoutItSigtermKills) {
  // The control: the default disposition ends the child, so the tests above do test the handler.
  EXPECT_EQ(InChild([] { raise(SIGTERM); }), -1);
}

}  // namespace
}  // namespace fleetsweep
