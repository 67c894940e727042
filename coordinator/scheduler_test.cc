#include "coordinator/scheduler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <set>

#include "common/store/file_store.h"
#include "common/wire/wire.h"
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

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testing::TempDir::Create();
    ASSERT_TRUE(d.ok());
    dir_.emplace(std::move(d).value());
    auto spec = ParseSpecText(kSpec, "test.yaml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec_ = std::move(spec).value();
    Reopen();
  }
  void Reopen() {
    sched_.reset();
    store_.reset();
    auto s = FileStore::Open(dir_->Join("store"));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    SchedulerOptions o;
    o.worker_timeout_seconds = 5;
    o.lease_grace_seconds = 1;
    o.epoch = "ep" + std::to_string(++epoch_);
    sched_ = std::make_unique<Scheduler>(spec_, o, store_.get());
    ASSERT_TRUE(sched_->Init().ok());
  }
  void Hello(const std::string& id, double now) {
    v1::Hello h;
    h.mutable_node()->set_node(id);
    h.mutable_node()->set_slots(4);
    sched_->OnHello(id, h, now);
  }
  v1::Result Ok(const v1::Lease& l, double value) {
    v1::Result r;
    r.set_lease_id(l.lease_id());
    r.set_sweep(l.sweep());
    auto* a = r.mutable_attempt();
    a->set_config_key(l.config_key());
    a->set_attempt_id(l.lease_id());
    a->set_ok(true);
    a->set_reference(l.reference());
    auto* s = a->add_samples();
    s->set_metric("t");
    s->set_value(value);
    return r;
  }
  v1::Result Fail(const v1::Lease& l, v1::FailureClass cls) {
    v1::Result r = Ok(l, 0);
    r.mutable_attempt()->clear_samples();
    r.mutable_attempt()->set_ok(false);
    r.mutable_attempt()->set_failure_class(cls);
    return r;
  }
  // Runs the sweep to the end with one worker answering every lease with `value(lease)`.
  int Drain(const std::string& worker, double* now) {
    int leases = 0;
    for (int round = 0; round < 1000 && !sched_->Finished(); ++round) {
      auto ls = sched_->OnWorkRequest(worker, 4, *now);
      for (auto& l : ls) {
        ++leases;
        auto r = sched_->OnResult(worker, Ok(l, 10 + std::stoi(l.params().at("A"))), *now);
        EXPECT_TRUE(r.ok());
      }
      *now += 0.1;
    }
    return leases;
  }

  std::optional<testing::TempDir> dir_;
  SweepSpec spec_;
  std::unique_ptr<FileStore> store_;
  std::unique_ptr<Scheduler> sched_;
  int epoch_ = 0;
};

TEST_F(SchedulerTest, RunsEveryConfigurationToItsRepetitionsWithPinnedValuesMerged) {
  EXPECT_EQ(sched_->configs().size(), 6u);
  Hello("w1", 0);
  double now = 0;
  auto first = sched_->OnWorkRequest("w1", 1, now);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(first[0].reference()) << "the reference goes first on a new node";
  EXPECT_EQ(first[0].params().at("P"), "7");
  ASSERT_TRUE(sched_->OnResult("w1", Ok(first[0], 11), now).ok());
  Drain("w1", &now);
  EXPECT_TRUE(sched_->Finished());
  Progress p = sched_->GetProgress();
  EXPECT_EQ(p.done, 6);
  auto stored = store_->LoadAttempts("sched");
  ASSERT_TRUE(stored.ok());
  int executions = 0, references = 0;
  for (const auto& a : *stored) (a.reference() ? references : executions)++;
  EXPECT_EQ(executions, 12) << "2 repetitions x 6 configurations, no more";
  // The reference is interleaved through the sweep, not only measured first.
  EXPECT_GE(references, 2);
}

TEST_F(SchedulerTest, HelloAckCarriesTheSpecAndLeasesNameItsHash) {
  v1::Hello h;
  h.mutable_node()->set_slots(1);
  v1::HelloAck ack = sched_->OnHello("w1", h, 0);
  EXPECT_EQ(ack.spec().spec_yaml(), kSpec);
  EXPECT_EQ(ack.spec().sweep(), "sched");
  EXPECT_EQ(ack.spec().spec_hash(), SpecHash(kSpec));
  auto ls = sched_->OnWorkRequest("w1", 2, 0);
  ASSERT_EQ(ls.size(), 2u);
  for (const auto& l : ls) {
    EXPECT_EQ(l.spec_hash(), ack.spec().spec_hash());
    EXPECT_LT(l.ByteSizeLong(), 400u) << "a lease does not carry the spec text";
  }
  EXPECT_EQ(sched_->SpecMessage().spec_yaml(), kSpec);
}

TEST_F(SchedulerTest, HeartbeatsRenewWaitingLeasesOnly) {
  Hello("w1", 0);
  Hello("w2", 0);
  auto ls = sched_->OnWorkRequest("w1", 2, 0);  // deadlines at 6 s (timeout 5 + grace 1)
  ASSERT_EQ(ls.size(), 2u);
  v1::Heartbeat hb;
  hb.add_waiting_lease_ids(ls[1].lease_id());  // prefetched, not started
  sched_->OnHeartbeat("w1", hb, 4);            // renews ls[1] to 10 s; ls[0] runs, keeps 6 s
  sched_->Tick(6.5);
  EXPECT_EQ(sched_->GetProgress().leases_expired, 1) << "the running lease keeps its deadline";
  EXPECT_EQ(sched_->GetProgress().busy, 1) << "the waiting lease was renewed";
  // Another worker cannot renew w1's lease.
  v1::Heartbeat other;
  other.add_waiting_lease_ids(ls[1].lease_id());
  sched_->OnHeartbeat("w2", other, 9);
  sched_->OnHeartbeat("w1", {}, 9);
  sched_->Tick(10.5);
  EXPECT_TRUE(sched_->KnowsWorker("w1"));
  EXPECT_EQ(sched_->GetProgress().leases_expired, 2);
  EXPECT_EQ(sched_->GetProgress().busy, 0);
}

TEST_F(SchedulerTest, AWaitingLeaseIsRenewedOnlyForABoundedTime) {
  Hello("w1", 0);
  auto ls = sched_->OnWorkRequest("w1", 1, 0);  // lease length 6 s (timeout 5 + grace 1)
  ASSERT_EQ(ls.size(), 1u);
  const double length = 6;
  const double cap = (kMaxPrefetchPerSlot + 1) * length;
  v1::Heartbeat hb;
  hb.add_waiting_lease_ids(ls[0].lease_id());
  // Named as waiting every second, forever: renewed up to the cap, then it expires.
  double t = 1;
  for (; t < cap - 1; t += 1) {
    sched_->OnHeartbeat("w1", hb, t);
    sched_->Tick(t + 0.5);
    ASSERT_EQ(sched_->GetProgress().leases_expired, 0) << "renewed at t=" << t;
  }
  for (; t < cap + 2 * length; t += 1) {
    sched_->OnHeartbeat("w1", hb, t);
    sched_->Tick(t + 0.5);
  }
  EXPECT_EQ(sched_->GetProgress().leases_expired, 1) << "renewals stop at " << cap << " s";
}

TEST_F(SchedulerTest, SilentWorkerLosesItsLeasesAndLateResultCountsOnce) {
  Hello("w1", 0);
  Hello("w2", 0);
  auto ls = sched_->OnWorkRequest("w1", 3, 0);
  ASSERT_EQ(ls.size(), 3u);  // reference + 2
  EXPECT_EQ(sched_->GetProgress().busy, 3);
  sched_->OnHeartbeat("w2", {}, 6);
  sched_->Tick(6.0);  // w1 silent for 6 s > 5 s
  EXPECT_FALSE(sched_->KnowsWorker("w1"));
  EXPECT_EQ(sched_->GetProgress().leases_expired, 3);
  // The late result of an expired lease is accepted once...
  auto r1 = sched_->OnResult("w1", Ok(ls[1], 5), 7);
  ASSERT_TRUE(r1.ok());
  EXPECT_TRUE(*r1);
  // ...and never counted twice.
  auto r2 = sched_->OnResult("w1", Ok(ls[1], 5), 7.5);
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE(*r2);
  EXPECT_EQ(sched_->GetProgress().duplicates, 1);
  double now = 8;
  Drain("w2", &now);
  EXPECT_TRUE(sched_->Finished());
  auto attempts = store_->LoadAttempts("sched");
  ASSERT_TRUE(attempts.ok());
  std::set<std::string> ids;
  for (const auto& a : *attempts) EXPECT_TRUE(ids.insert(a.attempt_id()).second);
}

TEST_F(SchedulerTest, DeterministicFailureMakesConfigurationInfeasibleAfterTwo) {
  Hello("w1", 0);
  double now = 0;
  int not_impl = 0;
  for (int round = 0; round < 200 && !sched_->Finished(); ++round) {
    for (auto& l : sched_->OnWorkRequest("w1", 2, now)) {
      if (l.params().at("B") == "y") {
        ++not_impl;
        ASSERT_TRUE(sched_->OnResult("w1", Fail(l, v1::FAILURE_CLASS_NOT_IMPLEMENTED), now).ok());
      } else {
        ASSERT_TRUE(sched_->OnResult("w1", Ok(l, 3), now).ok());
      }
    }
    now += 0.1;
  }
  ASSERT_TRUE(sched_->Finished());
  Progress p = sched_->GetProgress();
  EXPECT_EQ(p.infeasible, 3);
  EXPECT_EQ(p.done, 3);
  EXPECT_EQ(not_impl, 6) << "two identical deterministic failures per configuration, no more";
}

TEST_F(SchedulerTest, TransientFailuresAreRetriedUpToTheCap) {
  Hello("w1", 0);
  double now = 0;
  int timeouts = 0;
  for (int round = 0; round < 300 && !sched_->Finished(); ++round) {
    for (auto& l : sched_->OnWorkRequest("w1", 2, now)) {
      if (l.params().at("A") == "3" && !l.reference()) {
        ++timeouts;
        ASSERT_TRUE(sched_->OnResult("w1", Fail(l, v1::FAILURE_CLASS_TIMEOUT), now).ok());
      } else {
        ASSERT_TRUE(sched_->OnResult("w1", Ok(l, 3), now).ok());
      }
    }
    now += 0.1;
  }
  ASSERT_TRUE(sched_->Finished());
  EXPECT_EQ(sched_->GetProgress().infeasible, 2);
  EXPECT_EQ(timeouts, 6) << "max_failures = 3 per configuration";
}

TEST_F(SchedulerTest, RestartResumesWithoutRerunningFinishedWork) {
  Hello("w1", 0);
  double now = 0;
  // Finish part of the sweep, then "crash" the coordinator with leases outstanding.
  for (int i = 0; i < 4; ++i) {
    for (auto& l : sched_->OnWorkRequest("w1", 1, now)) {
      ASSERT_TRUE(sched_->OnResult("w1", Ok(l, 5), now).ok());
    }
  }
  auto outstanding = sched_->OnWorkRequest("w1", 2, now);
  ASSERT_EQ(outstanding.size(), 2u);
  const int64_t done_before = sched_->GetProgress().done;
  Reopen();
  EXPECT_EQ(sched_->GetProgress().done, done_before);
  EXPECT_FALSE(sched_->KnowsWorker("w1"));
  Hello("w1", 1);
  // The restarted coordinator never granted that lease: its result is refused (it cannot tell the
  // holder from a forger), and the configuration runs again.
  auto r = sched_->OnResult("w1", Ok(outstanding[0], 5), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_EQ(sched_->GetProgress().refused, 1);
  EXPECT_EQ(sched_->GetProgress().duplicates, 0);
  now = 2;
  Drain("w1", &now);
  EXPECT_TRUE(sched_->Finished());
  auto stored = store_->LoadAttempts("sched");
  ASSERT_TRUE(stored.ok());
  int n = 0;
  for (const auto& a : *stored) n += a.reference() ? 0 : 1;
  // 12 repetitions + at most the one lost lease (references are counted apart).
  EXPECT_LE(n, 12 + 1);
  EXPECT_GE(n, 12);
}

// Item 8 of issue 15: replayed failures are counted once, not added to the stored count.
TEST_F(SchedulerTest, FailureCountsDoNotDoubleOnResume) {
  Hello("w1", 0);
  double now = 0;
  std::string key;
  int timeouts = 0;
  // Two timeouts of one configuration (max_failures is 3): not infeasible yet.
  for (int round = 0; round < 100 && timeouts < 2; ++round) {
    for (auto& l : sched_->OnWorkRequest("w1", 1, now)) {
      if (!l.reference() && (key.empty() || l.config_key() == key) && timeouts < 2) {
        key = l.config_key();
        ++timeouts;
        ASSERT_TRUE(sched_->OnResult("w1", Fail(l, v1::FAILURE_CLASS_TIMEOUT), now).ok());
      } else {
        ASSERT_TRUE(sched_->OnResult("w1", Ok(l, 3), now).ok());
      }
    }
    now += 0.1;
  }
  ASSERT_EQ(timeouts, 2);
  for (int restart = 0; restart < 2; ++restart) {
    Reopen();
    for (const auto& c : sched_->configs()) {
      if (c.record.config_key() != key) continue;
      EXPECT_EQ(c.record.failures(), 2) << "after restart " << restart;
      EXPECT_NE(c.record.state(), v1::CONFIG_STATE_INFEASIBLE) << "after restart " << restart;
    }
  }
  EXPECT_EQ(sched_->GetProgress().infeasible, 0);
}

// Item 1 of issue 15: only the holder of a lease may report it.
TEST_F(SchedulerTest, ForgedResultsAreRefusedAndCountedApart) {
  Hello("honest", 0);
  Hello("evil", 0);
  auto ls = sched_->OnWorkRequest("honest", 2, 0);
  ASSERT_EQ(ls.size(), 2u);
  const v1::Lease& lease = ls[1];
  ASSERT_FALSE(lease.reference());
  // A result for a configuration nobody leased, with an id in the old KEY-EPOCH-SEQ form.
  v1::Lease made_up = lease;
  made_up.set_config_key(sched_->configs()[5].record.config_key());
  made_up.set_lease_id(made_up.config_key() + "-ep1-1");
  made_up.set_reference(false);
  for (int i = 0; i < 20; ++i) {
    auto r = sched_->OnResult("evil", Ok(made_up, 0.001), 1);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(*r);
  }
  // The honest worker's own lease, reported by another worker.
  auto stolen = sched_->OnResult("evil", Ok(lease, 0.001), 1);
  ASSERT_TRUE(stolen.ok());
  EXPECT_FALSE(*stolen);
  // The holder reporting another configuration under its lease id.
  v1::Result swapped = Ok(lease, 0.001);
  swapped.mutable_attempt()->set_config_key(made_up.config_key());
  swapped.mutable_attempt()->set_attempt_id(made_up.config_key() + "-x");
  EXPECT_FALSE(*sched_->OnResult("honest", swapped, 1));
  // A NaN sample.
  v1::Result nan = Ok(lease, std::nan(""));
  EXPECT_FALSE(*sched_->OnResult("honest", nan, 1));
  Progress p = sched_->GetProgress();
  EXPECT_EQ(p.refused, 23);
  EXPECT_EQ(p.duplicates, 0);
  EXPECT_EQ(p.attempts_ok, 0);
  EXPECT_EQ(*store_->CountAttempts("sched"), 0) << "refused results are never stored";
  // The holder's real result still counts.
  auto honest = sched_->OnResult("honest", Ok(lease, 12), 1);
  ASSERT_TRUE(honest.ok());
  EXPECT_TRUE(*honest);
  EXPECT_EQ(sched_->GetProgress().attempts_ok, 1);
}

TEST_F(SchedulerTest, LeasesAreBoundToTheCurveIdentityAndUnguessable) {
  v1::Hello h;
  h.mutable_node()->set_slots(4);
  sched_->OnHello("w1", h, 0, "KEY-ONE");
  auto ls = sched_->OnWorkRequest("w1", 3, 0);
  ASSERT_EQ(ls.size(), 3u);
  std::set<std::string> random_parts;
  for (const auto& l : ls) {
    // <config_key>-<epoch>-<32 hex digits>[-ref]
    std::string rest = l.lease_id().substr(l.config_key().size() + 1);
    rest = rest.substr(rest.find('-') + 1, 32);
    ASSERT_EQ(rest.size(), 32u) << l.lease_id();
    EXPECT_EQ(rest.find_first_not_of("0123456789abcdef"), std::string::npos) << l.lease_id();
    random_parts.insert(rest);
  }
  EXPECT_EQ(random_parts.size(), 3u);
  // Same worker id, another authorised key (a peer that took the id over): refused.
  auto other = sched_->OnResult("w1", Ok(ls[1], 3), 1, "KEY-TWO");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(*other);
  EXPECT_EQ(sched_->GetProgress().refused, 1);
  auto own = sched_->OnResult("w1", Ok(ls[1], 3), 1, "KEY-ONE");
  ASSERT_TRUE(own.ok());
  EXPECT_TRUE(*own);
  // A hello under the same id with another key takes the leases away from the first key.
  sched_->OnHello("w1", h, 2, "KEY-TWO");
  EXPECT_EQ(sched_->GetProgress().busy, 0);
  EXPECT_FALSE(*sched_->OnResult("w1", Ok(ls[2], 3), 3, "KEY-TWO"));
}

// A store whose writes can be made to fail (disk full, Redis at maxmemory with noeviction).
class RefusingStore : public ResultStore {
 public:
  explicit RefusingStore(ResultStore* inner) : inner_(inner) {}
  bool refuse = false;
  int writes_tried = 0;
  Status PutSpec(const std::string& s, const std::string& y) override {
    return Write([&] { return inner_->PutSpec(s, y); });
  }
  StatusOr<std::optional<std::string>> GetSpec(const std::string& s) override {
    return inner_->GetSpec(s);
  }
  StatusOr<std::vector<std::string>> ListSweeps() override { return inner_->ListSweeps(); }
  Status PutConfigs(const std::string& s, const std::vector<v1::ConfigRecord>& c) override {
    ++config_writes;
    return Write([&] { return inner_->PutConfigs(s, c); });
  }
  StatusOr<std::vector<v1::ConfigRecord>> LoadConfigs(const std::string& s) override {
    return inner_->LoadConfigs(s);
  }
  StatusOr<bool> PutAttempt(const std::string& s, const v1::Attempt& a) override {
    ++writes_tried;
    ++attempt_writes;
    if (refuse) return Status::Unavailable("OOM command not allowed when used memory > maxmemory");
    return inner_->PutAttempt(s, a);
  }
  StatusOr<std::vector<v1::Attempt>> LoadAttempts(const std::string& s) override {
    return inner_->LoadAttempts(s);
  }
  StatusOr<int64_t> CountAttempts(const std::string& s) override {
    return inner_->CountAttempts(s);
  }
  Status AppendEvent(const std::string& s, const std::string& e) override {
    return Write([&] { return inner_->AppendEvent(s, e); });
  }
  StatusOr<std::vector<std::string>> ReadEvents(const std::string& s, int64_t f,
                                                int64_t m) override {
    return inner_->ReadEvents(s, f, m);
  }
  StatusOr<std::vector<bool>> PutAttempts(const std::string& s, const std::vector<v1::Attempt>& a,
                                          const std::vector<std::string>& e) override {
    ++batches;
    batch_attempts += static_cast<int>(a.size());
    if (refuse) return Status::Unavailable("OOM command not allowed when used memory > maxmemory");
    return inner_->PutAttempts(s, a, e);
  }
  int batches = 0, batch_attempts = 0, attempt_writes = 0, config_writes = 0;
  Status Flush() override { return inner_->Flush(); }
  std::string Describe() const override { return "refusing:" + inner_->Describe(); }

 private:
  template <typename F>
  Status Write(F f) {
    ++writes_tried;
    if (refuse) return Status::Unavailable("OOM command not allowed when used memory > maxmemory");
    return f();
  }
  ResultStore* inner_;
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

// A sweep whose configurations differ clearly: racing stops the clearly worse ones after the first
// round, grid runs everything to the repetition cap; both keep the same best configuration.
int RunStrategy(const std::string& strategy, const std::string& dir, std::string* best) {
  std::string text = std::string(R"(sweep: race
executor: {type: exec, command: ["/bin/true"], timeout: 5}
parameters:
  A: {values: [1, 2, 3, 4, 5, 6]}
repetitions: {min: 3, max: 8, target_rel_ci: 0.0001}
metrics: [{name: t, goal: minimize}]
search: {strategy: )") +
                     strategy + "}\n";
  auto spec = ParseSpecText(text, "race.yaml");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  auto store = FileStore::Open(dir);
  EXPECT_TRUE(store.ok());
  SchedulerOptions o;
  Scheduler s(*spec, o, store->get());
  EXPECT_TRUE(s.Init().ok());
  v1::Hello h;
  h.mutable_node()->set_slots(1);
  s.OnHello("w", h, 0);
  int executions = 0;
  uint64_t noise = 1;
  for (int round = 0; round < 2000 && !s.Finished(); ++round) {
    for (auto& l : s.OnWorkRequest("w", 1, 0)) {
      ++executions;
      v1::Result r;
      r.set_lease_id(l.lease_id());
      r.set_sweep(l.sweep());
      r.mutable_attempt()->set_config_key(l.config_key());
      r.mutable_attempt()->set_attempt_id(l.lease_id());
      r.mutable_attempt()->set_ok(true);
      noise = noise * 6364136223846793005ULL + 1442695040888963407ULL;
      double jitter = static_cast<double>(noise >> 40) / static_cast<double>(1 << 24);  // [0,1)
      auto* smp = r.mutable_attempt()->add_samples();
      smp->set_metric("t");
      smp->set_value(10.0 * std::stoi(l.params().at("A")) + jitter);
      EXPECT_TRUE(s.OnResult("w", r, 0).ok());
    }
  }
  EXPECT_TRUE(s.Finished());
  *best = CanonicalKey(s.configs()[s.BestIndex()].params);
  if (strategy == "racing") {
    EXPECT_GE(s.GetProgress().eliminated, 4);
  }
  return executions;
}

TEST(SchedulerSearch, RacingSavesExecutionsAndKeepsTheWinner) {
  auto d = testing::TempDir::Create();
  ASSERT_TRUE(d.ok());
  std::string best_grid, best_race;
  int grid = RunStrategy("grid", d->Join("grid"), &best_grid);
  int race = RunStrategy("racing", d->Join("race"), &best_race);
  EXPECT_EQ(grid, 6 * 8);
  EXPECT_LT(race, grid * 3 / 4);
  EXPECT_EQ(best_grid, "A=1");
  EXPECT_EQ(best_race, best_grid);
}

TEST(SchedulerSearch, RandomAndLhsRespectTheBudget) {
  auto d = testing::TempDir::Create();
  ASSERT_TRUE(d.ok());
  for (std::string strategy : {"random", "lhs"}) {
    std::string text = R"(sweep: s
executor: {type: exec, command: ["/bin/true"]}
parameters:
  A: {values: [1, 2, 3, 4]}
  B: {values: [1, 2, 3, 4]}
metrics: [{name: t, goal: minimize}]
search: {strategy: )" + strategy +
                       ", budget: 4, seed: 7}\n";
    auto spec = ParseSpecText(text, "s.yaml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    auto store = FileStore::Open(d->Join(strategy));
    ASSERT_TRUE(store.ok());
    Scheduler s(*spec, SchedulerOptions{}, store->get());
    ASSERT_TRUE(s.Init().ok());
    ASSERT_EQ(s.configs().size(), 4u) << strategy;
    if (strategy == "lhs") {
      // Latin hypercube: every level of A and of B appears exactly once in 4 samples.
      std::set<std::string> a, b;
      for (const auto& c : s.configs()) {
        a.insert(c.params.at("A").ToString());
        b.insert(c.params.at("B").ToString());
      }
      EXPECT_EQ(a.size(), 4u);
      EXPECT_EQ(b.size(), 4u);
    }
  }
}

}  // namespace
}  // namespace fleetsweep

namespace fleetsweep {
namespace {

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
