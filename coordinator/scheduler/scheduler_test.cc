#include "coordinator/scheduler/scheduler.h"

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
  EXPECT_EQ(sched_->configs().size(), 6);
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
    const int index = sched_->configs().Find(key);
    ASSERT_GE(index, 0) << "a configuration with attempts is held after restart " << restart;
    const v1::ConfigRecord& r = sched_->configs().Get(index).record;
    EXPECT_EQ(r.failures(), 2) << "after restart " << restart;
    EXPECT_NE(r.state(), v1::CONFIG_STATE_INFEASIBLE) << "after restart " << restart;
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
  made_up.set_config_key(sched_->configs().Key(5));
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

}  // namespace
}  // namespace fleetsweep
