// ReapEscaped against real processes: a re-parented process is spared while the owned child
// whose tag it carries lives and killed after; an owned child's exit status is never taken.
#include "worker/executors/descendants.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "worker/executors/child_process.h"

namespace fleetsweep {
namespace {

ChildSpec Shell(const std::string& script) {
  ChildSpec s;
  s.path = "/bin/sh";
  s.argv = {"sh", "-c", script};
  s.env = {"PATH=/usr/bin:/bin"};
  s.workdir = "/";
  return s;
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

// Waits (bounded) until `cond` holds; the processes involved start asynchronously.
template <typename F>
bool Eventually(F cond) {
  for (int i = 0; i < 500; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

void Close(const Spawned& sp) {
  for (int fd : {sp.pidfd, sp.stdin_fd, sp.stdout_fd, sp.stderr_fd}) {
    if (fd >= 0) close(fd);
  }
}

TEST(Descendants, EscapedProcessLivesWhileItsOwnerLivesAndDiesAfter) {
  ASSERT_TRUE(BecomeSubreaper());
  // The owner starts a setsid'd sleep through a subshell that exits: the sleep is re-parented to
  // this process while the owner (exec'd into a long sleep) still runs. Its pid comes on stdout.
  ChildSpec spec = Shell(
      "(setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! >&3) 3>&1; "
      "exec sleep 301");
  Spawned owner = SpawnChild(spec, false);
  ASSERT_TRUE(owner.launch_error.empty()) << owner.launch_error;
  char buf[32] = {0};
  ASSERT_GT(read(owner.stdout_fd, buf, sizeof buf - 1), 0);
  const pid_t escaped = static_cast<pid_t>(atoi(buf));
  ASSERT_GT(escaped, 0);
  ASSERT_TRUE(Eventually([&] { return getpgid(escaped) == escaped; }));  // it called setsid
  ASSERT_TRUE(Eventually([&] { return ReapEscaped() == 0 && Alive(escaped); }));
  EXPECT_TRUE(Alive(escaped)) << "killed while the execution that made it still runs";

  killpg(owner.pid, SIGKILL);  // the escaped sleep is in its own session: not reached
  ASSERT_EQ(waitpid(owner.pid, nullptr, 0), owner.pid);
  ForgetOwned(owner.pid);
  Close(owner);
  EXPECT_TRUE(Alive(escaped));
  EXPECT_GE(ReapEscaped(), 1);
  EXPECT_FALSE(Alive(escaped)) << "the escaped process outlived its execution";
  EXPECT_EQ(waitpid(escaped, nullptr, WNOHANG), -1) << "not reaped";
}

TEST(Descendants, AnOwnedChildsExitStatusIsLeftToItsExecutor) {
  ASSERT_TRUE(BecomeSubreaper());
  Spawned sp = SpawnChild(Shell("exit 7"), false);
  ASSERT_TRUE(sp.launch_error.empty());
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, sp.pid, &info, WEXITED | WNOWAIT), 0);  // a zombie now
  EXPECT_EQ(ReapEscaped(), 0);
  int status = 0;
  ASSERT_EQ(waitpid(sp.pid, &status, 0), sp.pid) << "ReapEscaped took an owned child";
  ForgetOwned(sp.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 7);
  Close(sp);
}

}  // namespace
}  // namespace fleetsweep
