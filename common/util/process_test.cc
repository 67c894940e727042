// SelfDir and StopOnSignals on this very process (the signal cases in forked children, so each
// starts with a clear flag and a default disposition).
#include "common/util/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

TEST(StopOnSignals, SigpipeNeitherKillsNorStops) {
  EXPECT_EQ(InChild([] {
              const std::atomic<bool>& stop = StopOnSignals();
              raise(SIGPIPE);
              _exit(stop.load() ? 12 : 0);
            }),
            0);
}

TEST(StopOnSignals, WithoutItSigtermKills) {
  // The control: the default disposition ends the child, so the tests above do test the handler.
  EXPECT_EQ(InChild([] { raise(SIGTERM); }), -1);
}

}  // namespace
}  // namespace fleetsweep
