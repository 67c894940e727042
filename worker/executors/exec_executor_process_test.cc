// ExecExecutor and the child's processes: a timeout or a cancel kills the whole process group,
// leftover background processes are killed after exit, huge output keeps memory bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "worker/executors/exec_executor.h"
#include "worker/executors/exec_executor_fixture.h"

namespace fleetsweep {
namespace exec_test {
namespace {

TEST_F(ExecExecutorTest, TimeoutKillsTheWholeProcessGroup) {
  std::string pidfile = tmp_ + "/grandchild.pid";
  spec_.timeout_seconds = 1;
  auto t0 = std::chrono::steady_clock::now();
  v1::Attempt a = RunMode({"grandchild", pidfile}, /*grace=*/0.5);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_TIMEOUT) << a.failure_detail();
  EXPECT_LT(took, 1 + 0.5 + 3) << "killed within timeout + grace (+ slack)";
  pid_t grandchild = std::stoi(ReadFile(pidfile));
  ASSERT_GT(grandchild, 1);
  EXPECT_TRUE(ProcessGone(grandchild)) << "background grandchild " << grandchild << " survived";
}

TEST_F(ExecExecutorTest, LeftoverBackgroundProcessesAreKilledAfterExit) {
  std::string pidfile = tmp_ + "/leftover.pid";
  auto t0 = std::chrono::steady_clock::now();
  v1::Attempt a = RunMode({"leftover", pidfile});
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_LT(took, 10) << "a grandchild holding stdout must not stall the run";
  EXPECT_TRUE(ProcessGone(std::stoi(ReadFile(pidfile))));
}

TEST_F(ExecExecutorTest, CancelKillsTheChild) {
  std::atomic<bool> cancel{false};
  request_.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  v1::Attempt a = RunMode({"hang"});
  canceller.join();
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_SIGNAL);
  EXPECT_EQ(a.info().at("exec.cancelled"), "true");
  EXPECT_LT(a.duration_seconds(), 10);
}

TEST_F(ExecExecutorTest, HugeOutputKeepsMemoryBounded) {
  long before = MaxRssKb();
  v1::Attempt a = RunMode({"flood_line"});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_EQ(a.samples_size(), 1);
  EXPECT_EQ(a.info().at("exec.stdout_bytes"), std::to_string(200000000 + 1 + 49));
  EXPECT_EQ(a.info().at("exec.long_lines_cut"), "1");
  EXPECT_LE(a.stdout_tail().size(), ExecExecutor::kTailBytes);

  a = RunMode({"flood_lines"});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_LE(a.stderr_tail().size(), ExecExecutor::kTailBytes);
  EXPECT_NE(a.stderr_tail().find("line of error"), std::string::npos);
  long grown_mb = (MaxRssKb() - before) / 1024;
  EXPECT_LT(grown_mb, 64) << "~270 MB of output must not be buffered";
}

}  // namespace
}  // namespace exec_test
}  // namespace fleetsweep
