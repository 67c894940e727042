// The scheduler's store writes through the facade: refused writes pause leasing and resume
// (SchedulerStoreFaults), group commit of a batch's attempts and configuration records
// (SchedulerStoreAhead).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <set>

#include "common/store/file_store.h"
#include "common/store/forwarding_store.h"
#include "common/wire/wire.h"
#include "coordinator/scheduler/scheduler.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

const char* kSpec = R"(sweep: sched
executor: {type: exec, command: ["/bin/true"], timeout: 5}
parameters:
  A: {values: [1, 2, 3]}
  B: {values: [x, y]}
  P: {fixed: 7, reason: "pinned for the test"}
repetitions: {min: 2, max: 2, target_rel_ci: 0.5, max_failures: 3, deterministic_failures: 2}
metrics: [{name: t, goal: minimize}]
reference: {A: 1, B: x}
)";

// A store whose writes can be made to fail (disk full, Redis at maxmemory with noeviction).
class RefusingStore : public ForwardingStore {
 public:
  explicit RefusingStore(ResultStore* inner) : ForwardingStore(inner) {}
  bool refuse = false;
  int writes_tried = 0;
  int batches = 0, batch_attempts = 0, attempt_writes = 0, config_writes = 0;

  Status PutSpec(const std::string& s, const std::string& y) override {
    return Write([&] { return inner()->PutSpec(s, y); });
  }
  Status PutConfigs(const std::string& s, const std::vector<v1::ConfigRecord>& c) override {
    ++config_writes;
    return Write([&] { return inner()->PutConfigs(s, c); });
  }
  StatusOr<bool> PutAttempt(const std::string& s, const v1::Attempt& a) override {
    ++writes_tried;
    ++attempt_writes;
    if (refuse) return Status::Unavailable("OOM command not allowed when used memory > maxmemory");
    return inner()->PutAttempt(s, a);
  }
  Status AppendEvent(const std::string& s, const std::string& e) override {
    return Write([&] { return inner()->AppendEvent(s, e); });
  }
  StatusOr<std::vector<bool>> PutAttempts(const std::string& s, const std::vector<v1::Attempt>& a,
                                          const std::vector<std::string>& e) override {
    ++batches;
    batch_attempts += static_cast<int>(a.size());
    if (refuse) return Status::Unavailable("OOM command not allowed when used memory > maxmemory");
    return inner()->PutAttempts(s, a, e);
  }
  std::string Describe() const override { return "refusing:" + inner()->Describe(); }

 private:
  template <typename F>
  Status Write(F f) {
    ++writes_tried;
    if (refuse) return Status::Unavailable("OOM command not allowed when used memory > maxmemory");
    return f();
  }
};

// Item 7 of issue 15: while the store refuses writes no lease is granted or expired (nothing would
// be stored, and re-running would only add executions); probes back off; work resumes after.
TEST(SchedulerStoreFaults, RefusedWritesPauseLeasesAndResume) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  auto file = FileStore::Open(dir->Join("store"));
  ASSERT_TRUE(file.ok());
  RefusingStore store(file->get());
  auto spec = ParseSpecText(kSpec, "test.yaml");
  ASSERT_TRUE(spec.ok());
  SchedulerOptions o;
  o.lease_grace_seconds = 1;
  o.worker_timeout_seconds = 1000;
  Scheduler s(*spec, o, &store);
  ASSERT_TRUE(s.Init().ok());
  v1::Hello h;
  h.mutable_node()->set_slots(4);
  s.OnHello("w", h, 100);
  auto ls = s.OnWorkRequest("w", 3, 100);
  ASSERT_EQ(ls.size(), 3u);
  store.refuse = true;
  v1::Result r;
  r.set_lease_id(ls[1].lease_id());
  r.set_sweep(ls[1].sweep());
  r.mutable_attempt()->set_config_key(ls[1].config_key());
  r.mutable_attempt()->set_attempt_id(ls[1].lease_id());
  r.mutable_attempt()->set_ok(true);
  r.mutable_attempt()->add_samples()->set_metric("t");
  EXPECT_FALSE(s.OnResult("w", r, 101).ok());
  EXPECT_GT(s.StoreFailingSeconds(102), 0.9);
  EXPECT_NE(s.StoreError().message().find("maxmemory"), std::string::npos);
  EXPECT_TRUE(s.OnWorkRequest("w", 4, 102).empty()) << "no leases while writes fail";
  EXPECT_GE(s.NoWorkReply().retry_after_seconds(), 0.5);
  // Far past every deadline: nothing expires, nothing is queued to run again.
  const int tried_before = store.writes_tried;
  for (double t = 103; t < 163; t += 0.1) s.Tick(t);
  EXPECT_EQ(s.GetProgress().leases_expired, 0);
  EXPECT_GT(s.GetProgress().store_failing_seconds, 59);
  const int probes = store.writes_tried - tried_before;
  EXPECT_GE(probes, 5);
  EXPECT_LE(probes, 15) << "probes back off (0.5 s doubling to 10 s), not one per tick";
  // Writes succeed again: the next probe notices, the result is stored, leases flow.
  store.refuse = false;
  for (double t = 163; t < 175 && s.StoreFailingSeconds(t) > 0; t += 0.1) s.Tick(t);
  EXPECT_EQ(s.StoreFailingSeconds(175), 0);
  auto counted = s.OnResult("w", r, 175);
  ASSERT_TRUE(counted.ok());
  EXPECT_TRUE(*counted);
  EXPECT_FALSE(s.OnWorkRequest("w", 1, 175).empty());
}

v1::Result ResultFor(const v1::Lease& l, double value) {
  v1::Result r;
  r.set_lease_id(l.lease_id());
  r.set_sweep(l.sweep());
  r.mutable_attempt()->set_config_key(l.config_key());
  r.mutable_attempt()->set_attempt_id(l.lease_id());
  r.mutable_attempt()->set_reference(l.reference());
  r.mutable_attempt()->set_ok(true);
  auto* x = r.mutable_attempt()->add_samples();
  x->set_metric("t");
  x->set_value(value);
  return r;
}

// A scheduler over a counting (and, on demand, refusing) file store, with workers said hello.
class SchedulerStoreAhead : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testing::TempDir::Create();
    ASSERT_TRUE(d.ok());
    dir_.emplace(std::move(d).value());
    auto f = FileStore::Open(dir_->Join("store"));
    ASSERT_TRUE(f.ok());
    file_ = std::move(f).value();
    store_ = std::make_unique<RefusingStore>(file_.get());
    auto spec = ParseSpecText(kSpec, "test.yaml");
    ASSERT_TRUE(spec.ok());
    spec_ = std::move(spec).value();  // the scheduler keeps a reference
    sched_ = std::make_unique<Scheduler>(spec_, SchedulerOptions{}, store_.get());
    ASSERT_TRUE(sched_->Init().ok());
  }
  void Hello(const std::string& worker, int slots) {
    v1::Hello h;
    h.mutable_node()->set_slots(slots);
    sched_->OnHello(worker, h, 0);
  }
  std::optional<testing::TempDir> dir_;
  SweepSpec spec_;
  std::unique_ptr<FileStore> file_;
  std::unique_ptr<RefusingStore> store_;
  std::unique_ptr<Scheduler> sched_;
};

// Group commit (issue 16 item 2): results that arrive together are stored in one batch, then
// counted one by one without another write; what OnResult would refuse is never stored.
TEST_F(SchedulerStoreAhead, StoresAcceptedResultsInOneBatchThenCountsWithoutRewriting) {
  Scheduler& s = *sched_;
  RefusingStore& store = *store_;
  Hello("w", 4);
  Hello("other", 4);
  auto ls = s.OnWorkRequest("w", 3, 0);
  ASSERT_EQ(ls.size(), 3u);
  std::vector<v1::Result> results = {ResultFor(ls[0], 1), ResultFor(ls[1], 2), ResultFor(ls[1], 2),
                                     ResultFor(ls[2], 3)};
  const std::string w = "w", other = "other", none;
  std::vector<Scheduler::ResultRef> batch;
  for (size_t i = 0; i < results.size(); ++i) {
    batch.push_back({i == 3 ? &other : &w, &none, &results[i]});  // ls[2] "from" another worker
  }
  const int singles_before = store.attempt_writes;
  s.StoreAhead(batch);
  EXPECT_EQ(store.batches, 1);
  EXPECT_EQ(store.batch_attempts, 2) << "the duplicate and the forged result are not written";
  EXPECT_EQ(*store.CountAttempts("sched"), 2);
  EXPECT_TRUE(*s.OnResult("w", results[0], 1));
  EXPECT_TRUE(*s.OnResult("w", results[1], 1));
  EXPECT_FALSE(*s.OnResult("w", results[2], 1));      // counted once
  EXPECT_FALSE(*s.OnResult("other", results[3], 1));  // refused
  EXPECT_EQ(store.attempt_writes, singles_before) << "OnResult did not write them again";
  // A result without a batch is written by OnResult itself.
  EXPECT_TRUE(*s.OnResult("w", ResultFor(ls[2], 3), 1));
  EXPECT_EQ(*store.CountAttempts("sched"), 3);
  // A refused batch leaves every result to OnResult.
  auto more = s.OnWorkRequest("w", 2, 2);
  ASSERT_EQ(more.size(), 2u);
  std::vector<v1::Result> next = {ResultFor(more[0], 4), ResultFor(more[1], 5)};
  store.refuse = true;
  s.StoreAhead({{&w, &none, &next[0]}, {&w, &none, &next[1]}});
  store.refuse = false;
  EXPECT_EQ(*store.CountAttempts("sched"), 3);
  EXPECT_TRUE(*s.OnResult("w", next[0], 3));
  EXPECT_EQ(*store.CountAttempts("sched"), 4) << "OnResult wrote it after the batch failed";
}

// Configuration records changed while a batch is handled are written once, at its end.
TEST_F(SchedulerStoreAhead, ConfigRecordsOfABatchAreWrittenOnceAtItsEnd) {
  Scheduler& s = *sched_;
  RefusingStore& store = *store_;
  Hello("w", 8);
  // Two rounds of every configuration (repetitions 2): the second round makes them DONE.
  int done_before_end = 0;
  for (int round = 0; round < 2; ++round) {
    auto ls = s.OnWorkRequest("w", 8, round);
    s.BeginBatch();
    const int writes = store.config_writes;
    for (const auto& l : ls) ASSERT_TRUE(s.OnResult("w", ResultFor(l, 1), round).ok());
    EXPECT_EQ(store.config_writes, writes) << "no record written inside the batch";
    ASSERT_TRUE(s.EndBatch().ok());
    EXPECT_LE(store.config_writes, writes + 1) << "one write at the end";
    if (round == 1) {
      auto records = store.LoadConfigs("sched");
      ASSERT_TRUE(records.ok());
      for (const auto& r : *records) done_before_end += r.state() == v1::CONFIG_STATE_DONE;
    }
  }
  EXPECT_GT(done_before_end, 0) << "the deferred records reached the store";
}

}  // namespace
}  // namespace fleetsweep
