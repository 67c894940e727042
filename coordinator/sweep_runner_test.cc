// The runner's parts: exit codes (one list, in docs/cli.md), JudgeResult, SweepRunner's Open
// failures and a stopped sweep, StoreWatch against a real redis-server (data lost, writes
// refused) and LiveAudits' metrics. tests/e2e/test_exit_codes.py reaches every code with real
// processes.
#include "coordinator/sweep_runner.h"

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
#include "coordinator/live_audits.h"
#include "coordinator/store_watch.h"
#include "tests/support/redis_server.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

const char* kSpec = R"(sweep: runner
executor: {type: exec, command: ["/bin/true"], timeout: 5}
parameters:
  A: {values: [1, 2, 3]}
repetitions: {min: 3, max: 3, target_rel_ci: 0.5, max_failures: 3, deterministic_failures: 1}
metrics: [{name: t, goal: minimize, unit: ms}]
)";

std::string WriteFile(const testing::TempDir& dir, const std::string& name,
                      const std::string& text) {
  std::ofstream(dir.Join(name)) << text;
  return dir.Join(name);
}

v1::Result Answer(const v1::Lease& l, double value) {
  v1::Result r;
  r.set_lease_id(l.lease_id());
  r.set_sweep(l.sweep());
  auto* a = r.mutable_attempt();
  a->set_config_key(l.config_key());
  a->set_attempt_id(l.lease_id());
  a->set_node("n1");
  a->set_ok(true);
  a->set_fingerprint("same-code-for-all");
  for (int i = 0; i < 3; ++i) {
    auto* s = a->add_samples();
    s->set_metric("t");
    s->set_value(value + 0.01 * i);
  }
  return r;
}

// Runs every configuration to repetitions.min through the scheduler's API (no sockets).
void RunAll(Scheduler& s, double* now) {
  v1::Hello h;
  h.mutable_node()->set_node("n1");
  h.mutable_node()->set_slots(1);
  s.OnHello("w", h, *now);
  for (int i = 0; i < 50 && !s.Finished(); ++i) {
    for (const auto& l : s.OnWorkRequest("w", 1, *now)) {
      ASSERT_TRUE(s.OnResult("w", Answer(l, 10.0 + std::stoi(l.params().at("A"))), *now).ok());
    }
    *now += 1;
  }
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
  EXPECT_EQ(seen, (std::set<int>{0, 2, 3, 4, 5, 6, 7}));
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

// A stop before any work: Serve returns, Finish writes the (empty) results and exits 0 (nothing
// finished, so no verdict on what did not run).
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

// A finished sweep of kSpec: its scheduler, the attempts it counted (through the observer, as the
// runner feeds LiveAudits) and what the store holds.
struct FinishedSweep {
  std::unique_ptr<testing::TempDir> dir;
  std::unique_ptr<ResultStore> store;
  SweepSpec spec;
  std::vector<v1::Attempt> counted;
  std::unique_ptr<Scheduler> scheduler;

  std::vector<v1::ConfigRecord> Records() const {
    std::vector<v1::ConfigRecord> out;
    for (const auto& c : scheduler->configs()) out.push_back(c.record);
    return out;
  }
  LiveBatch Batch(double now, bool with_attempts) const {
    LiveBatch b;
    b.now = now;
    b.progress = scheduler->GetProgress();
    if (with_attempts) {
      b.attempts = counted;
      b.records = Records();
    }
    return b;
  }
};

void RunFinishedSweep(FinishedSweep* f) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  f->dir = std::make_unique<testing::TempDir>(std::move(dir).value());
  auto store = FileStore::Open(f->dir->Join("store"));
  ASSERT_TRUE(store.ok());
  f->store = std::move(store).value();
  auto spec = ParseSpecText(kSpec, "l.yaml");
  ASSERT_TRUE(spec.ok());
  f->spec = *spec;
  SchedulerOptions so;
  so.epoch = "e1";
  so.on_attempt_counted = [f](const v1::Attempt& a) { f->counted.push_back(a); };
  f->scheduler = std::make_unique<Scheduler>(f->spec, so, f->store.get());
  ASSERT_TRUE(f->scheduler->Init().ok());
  double now = 0;
  RunAll(*f->scheduler, &now);
  ASSERT_TRUE(f->scheduler->Finished());
  ASSERT_EQ(f->counted.size(), 9u);
}

void ExpectSweepPublished(const std::string& t) {
  EXPECT_EQ(metrics_testing::Value(t, "fleetsweep_coordinator_configurations",
                                   {{"sweep", "runner"}, {"state", "done"}}),
            3);
  // The best is A=1 (median of 11.00, 11.01, 11.02 over its executions).
  auto best = metrics_testing::Value(t, "fleetsweep_coordinator_best_value",
                                     {{"sweep", "runner"}, {"metric", "t"}});
  ASSERT_TRUE(best.has_value()) << t;
  EXPECT_NEAR(*best, 11.01, 1e-9);
  EXPECT_EQ(metrics_testing::CountSeries(t, "fleetsweep_coordinator_top_config_value"), 3);
  // Every variant reported the same fingerprint: A was not injected.
  EXPECT_EQ(metrics_testing::Value(
                t, "fleetsweep_coordinator_audit_verdict",
                {{"sweep", "runner"}, {"parameter", "A"}, {"verdict", "not_injected"}}),
            1)
      << t;
}

TEST(LiveAudits, PublishesProgressBestAndAuditsFromHandedAttemptsOnTheirInterval) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  // Starts from the pending records, as a fresh sweep does; everything arrives in batches.
  std::vector<v1::ConfigRecord> pending = f.Records();
  for (auto& r : pending) r.set_state(v1::CONFIG_STATE_PENDING);
  LiveAudits audits(f.spec, &m, LiveAuditOptions{}, pending, std::vector<v1::Attempt>{});
  audits.Hand(f.Batch(1000, true));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 1);
  ExpectSweepPublished(metrics_testing::Scrape(*exposer));
  // The aggregate is published every 2 s of the batches' clock, not on every batch.
  audits.Hand(f.Batch(1001, false));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 1);
  audits.Hand(f.Batch(1002, false));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 2);
}

TEST(LiveAudits, StartsFromTheAttemptsCountedBeforeServing) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  auto stored = f.store->LoadAttempts(f.spec.name);
  ASSERT_TRUE(stored.ok());
  LiveAudits audits(f.spec, &m, LiveAuditOptions{}, f.Records(), *stored);
  audits.Hand(f.Batch(0, false));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 1);
  ExpectSweepPublished(metrics_testing::Scrape(*exposer));
}

TEST(LiveAudits, PastMaxLiveAttemptsPublishesProgressOnly) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  LiveAuditOptions o;
  o.max_live_attempts = 8;  // the sweep counted 9
  LiveAudits audits(f.spec, &m, o, f.Records(), std::vector<v1::Attempt>{});
  EXPECT_TRUE(audits.aggregating());
  audits.Hand(f.Batch(0, true));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 0);
  EXPECT_FALSE(audits.aggregating()) << "the runner stops handing attempts over";
  const std::string t = metrics_testing::Scrape(*exposer);
  EXPECT_EQ(metrics_testing::Value(t, "fleetsweep_coordinator_configurations",
                                   {{"sweep", "runner"}, {"state", "done"}}),
            3);
  EXPECT_FALSE(metrics_testing::Value(t, "fleetsweep_coordinator_best_value",
                                      {{"sweep", "runner"}, {"metric", "t"}})
                   .has_value());
}

TEST(LiveAudits, UnknownEarlierAttemptsPublishProgressOnly) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  // A resumed sweep whose earlier attempts could not be read: a best from the new attempts
  // alone would be wrong, so none is published.
  LiveAudits audits(f.spec, &m, LiveAuditOptions{}, f.Records(), std::nullopt);
  EXPECT_FALSE(audits.aggregating());
  audits.Hand(f.Batch(0, true));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 0);
  const std::string t = metrics_testing::Scrape(*exposer);
  EXPECT_EQ(metrics_testing::Value(t, "fleetsweep_coordinator_configurations",
                                   {{"sweep", "runner"}, {"state", "done"}}),
            3);
  EXPECT_FALSE(metrics_testing::Value(t, "fleetsweep_coordinator_best_value",
                                      {{"sweep", "runner"}, {"metric", "t"}})
                   .has_value());
}

TEST(LiveAudits, WithoutMetricsDoesNothing) {
  auto spec = ParseSpecText(kSpec, "l.yaml");
  ASSERT_TRUE(spec.ok());
  LiveAudits audits(*spec, nullptr, LiveAuditOptions{}, {}, std::nullopt);
  audits.Hand(LiveBatch{});
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 0);
}

}  // namespace
}  // namespace fleetsweep
