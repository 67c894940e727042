// The runner's parts: exit codes (one list, in docs/cli.md), JudgeResult, SweepRunner's Open
// failures and a stopped sweep, StoreWatch against a real redis-server (data lost, writes
// refused); LiveAudits in live_audits_test.cc. tests/e2e/test_exit_codes.py reaches every code
// with real processes.
#include "coordinator/app/sweep_runner.h"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/metrics/coordinator_metrics.h"
#include "common/metrics/metrics_test_util.h"
#include "common/store/file_store.h"
#include "common/store/store.h"
#include "coordinator/app/runner_test_support.h"
#include "coordinator/app/store_watch.h"
#include "nlohmann/json.hpp"
#include "tests/support/redis_server.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

std::string WriteFile(const testing::TempDir& dir, const std::string& name,
                      const std::string& text) {
  std::ofstream(dir.Join(name)) << text;
  return dir.Join(name);
}

SweepRunOptions Options(const testing::TempDir& dir, const std::string& spec_text) {
  SweepRunOptions o;
  o.spec_path = WriteFile(dir, "spec.yaml", spec_text);
  o.store_url = "file:" + dir.Join("store");
  o.server.bind = "tcp://127.0.0.1:0";
  o.progress = false;
  return o;
}

TEST(ExitCodes, EachIsDistinctDescribedAndListedInDocs) {
  std::set<int> seen;
  for (ExitCode c : AllExitCodes()) {
    EXPECT_TRUE(seen.insert(ToInt(c)).second) << ToInt(c);
    EXPECT_STRNE(Describe(c), "unknown");
    EXPECT_NE(ExitCodesHelp().find(std::to_string(ToInt(c)) + "  " + Describe(c)),
              std::string::npos);
  }
  EXPECT_EQ(seen, (std::set<int>{0, 2, 3, 4, 5, 6, 7, 130}));
  const char* src = std::getenv("FLEETSWEEP_SRC");
#ifdef FLEETSWEEP_SOURCE_DIR
  if (src == nullptr || *src == '\0') src = FLEETSWEEP_SOURCE_DIR;
#endif
  ASSERT_NE(src, nullptr) << "FLEETSWEEP_SRC is not set";
  std::ifstream in(std::string(src) + "/docs/cli.md");
  ASSERT_TRUE(in) << "docs/cli.md";
  std::stringstream doc;
  doc << in.rdbuf();
  for (ExitCode c : AllExitCodes()) {
    const std::string row =
        "| " + std::to_string(ToInt(c)) + " | " + std::string(Describe(c)) + " |";
    EXPECT_NE(doc.str().find(row), std::string::npos) << "docs/cli.md lacks the row " << row;
  }
}

TEST(JudgeResult, NothingSucceededAuditRefusedOrOk) {
  SweepResult r;
  r.valid = true;
  r.done = 0;
  EXPECT_EQ(JudgeResult(r, /*finished=*/true).code, ExitCode::kNothingSucceeded);
  // Stopped early (not finished): no verdict on what did not run.
  EXPECT_EQ(JudgeResult(r, /*finished=*/false).code, ExitCode::kOk);
  r.done = 2;
  EXPECT_EQ(JudgeResult(r, true).code, ExitCode::kOk);
  EXPECT_TRUE(JudgeResult(r, true).messages.empty());
  r.valid = false;
  r.invalid_reasons = {"every variant ran the same fingerprint", "second reason"};
  RunOutcome o = JudgeResult(r, true);
  EXPECT_EQ(o.code, ExitCode::kAuditRefused);
  ASSERT_EQ(o.messages.size(), 1u);
  EXPECT_NE(o.messages[0].find("INVALID"), std::string::npos);
  EXPECT_NE(o.messages[0].find("\n  every variant ran the same fingerprint\n  second reason"),
            std::string::npos)
      << o.messages[0];
  // Nothing succeeded comes first: it is the plainer reason.
  r.done = 0;
  EXPECT_EQ(JudgeResult(r, true).code, ExitCode::kNothingSucceeded);
}

TEST(SweepRunnerOpen, BadInputIsTwo) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  std::ostringstream out;
  {
    SweepRunOptions o = Options(*dir, kSpec);
    o.spec_path = dir->Join("missing.yaml");
    EXPECT_EQ(SweepRunner(o, out).Open().code, ExitCode::kBadInput);
  }
  {
    SweepRunOptions o = Options(*dir, kSpec);
    o.out_dir = WriteFile(*dir, "a-file", "") + "/sub";
    EXPECT_EQ(SweepRunner(o, out).Open().code, ExitCode::kBadInput);
  }
  {
    SweepRunOptions o = Options(
        *dir, std::string(kSpec).replace(std::string(kSpec).find("/bin/true"), 9, "/no/such"));
    o.check_executor = ExecutorCheckOptions{"", true, ""};
    RunOutcome r = SweepRunner(o, out).Open();
    EXPECT_EQ(r.code, ExitCode::kBadInput);
    ASSERT_FALSE(r.messages.empty());
    EXPECT_NE(r.messages[0].find("/no/such"), std::string::npos) << r.messages[0];
  }
  {
    // The store holds another spec under the same sweep name.
    SweepRunOptions o = Options(*dir, kSpec);
    ASSERT_TRUE(SweepRunner(o, out).Open().ok());
    std::string changed = kSpec;
    changed.replace(changed.find("[1, 2, 3]"), 9, "[1, 2]");
    o.spec_path = WriteFile(*dir, "changed.yaml", changed);
    EXPECT_EQ(SweepRunner(o, out).Open().code, ExitCode::kBadInput);
  }
}

TEST(SweepRunnerOpen, StartFailuresAreThree) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  std::ostringstream out;
  {
    SweepRunOptions o = Options(*dir, kSpec);
    o.store_url = "bogus://x";
    EXPECT_EQ(SweepRunner(o, out).Open().code, ExitCode::kStartOrIoFailure);
  }
  {
    // The file store is locked by another opener.
    SweepRunOptions o = Options(*dir, kSpec);
    auto held = FileStore::Open(dir->Join("store"));
    ASSERT_TRUE(held.ok());
    EXPECT_EQ(SweepRunner(o, out).Open().code, ExitCode::kStartOrIoFailure);
  }
  {
    SweepRunOptions o = Options(*dir, kSpec);
    o.server.bind = "tcp://256.1.1.1:1";
    EXPECT_EQ(SweepRunner(o, out).Open().code, ExitCode::kStartOrIoFailure);
  }
  {
    SweepRunOptions o = Options(*dir, kSpec);
    o.on_bound = [](const std::string&, int, bool) {
      return Status::Internal("cannot start local workers");
    };
    RunOutcome r = SweepRunner(o, out).Open();
    EXPECT_EQ(r.code, ExitCode::kStartOrIoFailure);
    ASSERT_EQ(r.messages.size(), 1u);
    EXPECT_EQ(r.messages[0], "cannot start local workers");
  }
}

TEST(SweepRunner, PhasesNeedOpen) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  std::ostringstream out;
  SweepRunner runner(Options(*dir, kSpec), out);
  std::atomic<bool> stop{true};
  EXPECT_EQ(runner.Serve(stop).code, ExitCode::kStartOrIoFailure);
  EXPECT_EQ(runner.Finish().code, ExitCode::kStartOrIoFailure);
}

// A stop before any work: Serve returns, Finish writes the (empty) results, saying the sweep was
// interrupted, and exits 0 (nothing finished, so no verdict on what did not run).
TEST(SweepRunner, StoppedSweepFinishesWithZero) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  std::ostringstream out;
  SweepRunOptions o = Options(*dir, kSpec);
  o.out_dir = dir->Join("out");
  SweepRunner runner(o, out);
  ASSERT_TRUE(runner.Open().ok());
  EXPECT_EQ(runner.endpoint().rfind("tcp://127.0.0.1:", 0), 0u) << runner.endpoint();
  std::atomic<bool> stop{true};
  RunOutcome served = runner.Serve(stop);
  EXPECT_TRUE(served.ok()) << served.messages.size();
  RunOutcome finished = runner.Finish();
  EXPECT_EQ(finished.code, ExitCode::kOk);
  EXPECT_TRUE(std::filesystem::exists(dir->Join("out/results.json")));
  EXPECT_NE(out.str().find("results: " + o.out_dir + "/results.json"), std::string::npos)
      << out.str();
  // Interrupted before anything ran: no configuration has a record, and the results say so.
  std::ifstream in(dir->Join("out/results.json"));
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_EQ(j["summary"]["configurations"], 0);
  EXPECT_EQ(j["summary"]["space_configurations"], 3);
  EXPECT_EQ(j["summary"]["not_run"], 3);
  EXPECT_NE(out.str().find("INTERRUPTED"), std::string::npos) << out.str();
  // No report.html for an interrupted sweep (a prompt exit); the output says how to write it.
  EXPECT_FALSE(std::filesystem::exists(dir->Join("out/report.html")));
  EXPECT_NE(out.str().find("fleetsweep report " + o.out_dir), std::string::npos) << out.str();
  // Its store was closed in Finish (before the aggregate, so that its index is not held under
  // the aggregate's peak), not when the runner goes: another process can open it now.
  auto reopened = OpenStore(o.store_url);
  EXPECT_TRUE(reopened.ok()) << reopened.status().message();
}

// --- StoreWatch against a real redis-server ---

class RedisCommand {
 public:
  explicit RedisCommand(int port) : c_(redisConnect("127.0.0.1", port)) {}
  ~RedisCommand() {
    if (c_) redisFree(c_);
  }
  // The reply's type (REDIS_REPLY_*), -1 on a connection error.
  int Run(const char* cmd) {
    if (c_ == nullptr || c_->err) return -1;
    auto* r = static_cast<redisReply*>(redisCommand(c_, cmd));
    if (r == nullptr) return -1;
    int type = r->type;
    freeReplyObject(r);
    return type;
  }

 private:
  redisContext* c_;
};

class StoreWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = redis_.Start();
    if (testing::RedisServer::IsMissingBinary(s)) GTEST_SKIP() << "redis-server not installed";
    ASSERT_TRUE(s.ok()) << s.ToString();
    auto store = OpenStore(redis_.url());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    auto spec = ParseSpecText(kSpec, "w.yaml");
    ASSERT_TRUE(spec.ok());
    spec_ = *spec;
    SchedulerOptions o;
    o.epoch = "e1";
    o.worker_timeout_seconds = 1000;
    scheduler_ = std::make_unique<Scheduler>(spec_, o, store_.get());
    ASSERT_TRUE(scheduler_->Init().ok());
  }

  testing::RedisServer redis_;
  std::unique_ptr<ResultStore> store_;
  SweepSpec spec_;
  std::unique_ptr<Scheduler> scheduler_;
};

TEST_F(StoreWatchTest, FlushedStoreIsDataLossExitSix) {
  double now = 100;
  RunAll(*scheduler_, &now);
  StoreWatch watch(spec_, store_.get(), /*give_up_seconds=*/300, /*intact_every_s=*/2);
  EXPECT_TRUE(watch.Check(*scheduler_, now, nullptr).ok());
  ASSERT_EQ(RedisCommand(redis_.port()).Run("FLUSHALL"), REDIS_REPLY_STATUS);
  // Within the 2 s interval the check is not repeated; after it, the loss is found.
  EXPECT_TRUE(watch.Check(*scheduler_, now + 1, nullptr).ok());
  Status lost = watch.Check(*scheduler_, now + 2.5, nullptr);
  EXPECT_EQ(lost.code(), StatusCode::kDataLoss) << lost.ToString();
  EXPECT_EQ(StoreWatch::CodeOf(lost), ExitCode::kStoreLostData);
}

TEST_F(StoreWatchTest, RefusedWritesPastTheLimitExitSeven) {
  double now = 100;
  v1::Hello h;
  h.mutable_node()->set_node("n1");
  h.mutable_node()->set_slots(1);
  scheduler_->OnHello("w", h, now);
  auto leases = scheduler_->OnWorkRequest("w", 1, now);
  ASSERT_EQ(leases.size(), 1u);
  RedisCommand redis(redis_.port());
  ASSERT_EQ(redis.Run("CONFIG SET maxmemory-policy noeviction"), REDIS_REPLY_STATUS);
  ASSERT_EQ(redis.Run("CONFIG SET maxmemory 1"), REDIS_REPLY_STATUS);
  EXPECT_FALSE(scheduler_->OnResult("w", Answer(leases[0], 10), now).ok());
  StoreWatch watch(spec_, store_.get(), /*give_up_seconds=*/5);
  EXPECT_TRUE(watch.Check(*scheduler_, now + 4, nullptr).ok()) << "within the limit: paused";
  Status refused = watch.Check(*scheduler_, now + 6, nullptr);
  EXPECT_EQ(refused.code(), StatusCode::kUnavailable) << refused.ToString();
  EXPECT_NE(refused.message().find("refused writes"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find(store_->Describe()), std::string::npos) << refused.message();
  EXPECT_EQ(StoreWatch::CodeOf(refused), ExitCode::kStoreRefusedWrites);
}

// --- LiveAudits ---

}  // namespace
}  // namespace fleetsweep
