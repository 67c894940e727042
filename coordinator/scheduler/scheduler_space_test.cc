// The scheduler over an indexed space (issue 16): Init writes no configuration record; a record
// reaches the store when its configuration is first counted or changes state; a restarted
// scheduler resumes from those records and from attempts whose configuration has no record
// (a worker stored it before the coordinator wrote anything), and holds only what the store
// names; an older store with a PENDING record for every configuration is read the same way.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <set>

#include "common/store/file_store.h"
#include "coordinator/scheduler/scheduler.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

const char* kSpec = R"(sweep: lazy
executor: {type: exec, command: ["/bin/true"], timeout: 5}
parameters:
  A: {values: [1, 2, 3, 4, 5]}
  B: {values: [x, y, z, w]}
  P: {fixed: 7, reason: "pinned for the test"}
constraints: ["A != 3 or B != 'z'"]
repetitions: {min: 2, max: 2, target_rel_ci: 0.5, max_failures: 3, deterministic_failures: 2}
metrics: [{name: t, goal: minimize}]
)";

v1::Result ResultFor(const v1::Lease& l, double value) {
  v1::Result r;
  r.set_lease_id(l.lease_id());
  r.set_sweep(l.sweep());
  r.mutable_attempt()->set_config_key(l.config_key());
  r.mutable_attempt()->set_attempt_id(l.lease_id());
  r.mutable_attempt()->set_ok(true);
  auto* x = r.mutable_attempt()->add_samples();
  x->set_metric("t");
  x->set_value(value);
  return r;
}

class SchedulerSpace : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testing::TempDir::Create();
    ASSERT_TRUE(d.ok());
    dir_.emplace(std::move(d).value());
    auto spec = ParseSpecText(kSpec, "lazy.yaml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec_ = std::move(spec).value();
    Reopen();
  }
  // A new scheduler (a coordinator restart) on the same store.
  void Reopen() {
    sched_.reset();
    store_.reset();
    auto f = FileStore::Open(dir_->Join("store"));
    ASSERT_TRUE(f.ok());
    store_ = std::move(f).value();
    SchedulerOptions o;
    o.epoch = "ep" + std::to_string(++starts_);
    sched_ = std::make_unique<Scheduler>(spec_, o, store_.get());
    ASSERT_TRUE(sched_->Init().ok());
    v1::Hello h;
    h.mutable_node()->set_slots(64);
    sched_->OnHello("w", h, 0);
  }
  std::set<std::string> StoredKeys() {
    auto records = store_->LoadConfigs("lazy");
    EXPECT_TRUE(records.ok());
    std::set<std::string> keys;
    for (const auto& r : *records) keys.insert(r.config_key());
    return keys;
  }
  std::optional<testing::TempDir> dir_;
  SweepSpec spec_;
  std::unique_ptr<FileStore> store_;
  std::unique_ptr<Scheduler> sched_;
  int starts_ = 0;
};

TEST_F(SchedulerSpace, RecordsAreWrittenWhenAConfigurationIsFirstCountedNotUpFront) {
  Scheduler& s = *sched_;
  EXPECT_EQ(s.configs().size(), 19);
  EXPECT_EQ(s.configs().held(), 0);
  EXPECT_TRUE(StoredKeys().empty()) << "Init writes no configuration record";
  auto ls = s.OnWorkRequest("w", 3, 1);
  ASSERT_EQ(ls.size(), 3u);
  EXPECT_EQ(s.configs().held(), 3) << "only leased configurations are held";
  EXPECT_TRUE(StoredKeys().empty()) << "a lease writes no record";
  ASSERT_TRUE(*s.OnResult("w", ResultFor(ls[0], 1), 2));
  EXPECT_EQ(StoredKeys(), std::set<std::string>{ls[0].config_key()})
      << "the first counted attempt writes its configuration's record (still PENDING)";
  // The lease's params are the configuration's, decoded from its index.
  const int index = s.configs().Find(ls[0].config_key());
  ASSERT_GE(index, 0);
  for (const auto& [name, value] : s.configs().Params(index)) {
    EXPECT_EQ(ls[0].params().at(name), value.ToString());
  }
}

TEST_F(SchedulerSpace, ARestartResumesFromRecordsAndFromAttemptsWithoutARecord) {
  // 20 leases: every configuration once (assignment is randomised) and one of them twice.
  auto ls = sched_->OnWorkRequest("w", 20, 1);
  ASSERT_EQ(ls.size(), 20u);
  std::map<std::string, std::vector<v1::Lease>> by_key;
  for (const auto& l : ls) by_key[l.config_key()].push_back(l);
  ASSERT_EQ(by_key.size(), 19u);
  std::string done_key, half_key, orphan_key;
  for (const auto& [key, leases] : by_key) {
    if (leases.size() == 2) {
      done_key = key;
    } else if (half_key.empty()) {
      half_key = key;
    } else if (orphan_key.empty()) {
      orphan_key = key;
    }
  }
  ASSERT_FALSE(done_key.empty());
  const int orphan_index = sched_->configs().Find(orphan_key);
  ASSERT_GE(orphan_index, 0);
  for (const auto& l : by_key[done_key]) ASSERT_TRUE(*sched_->OnResult("w", ResultFor(l, 1), 2));
  ASSERT_TRUE(*sched_->OnResult("w", ResultFor(by_key[half_key][0], 5), 2));
  // The other leases are never answered (the coordinator dies). A worker stored an attempt of
  // another configuration, never counted by this coordinator (cluster mode), so it has no record:
  // the restart must find it by walking the space.
  v1::Attempt orphan;
  orphan.set_attempt_id(orphan_key + "-old-1");
  orphan.set_config_key(orphan_key);
  orphan.set_ok(true);
  auto* x = orphan.add_samples();
  x->set_metric("t");
  x->set_value(3);
  ASSERT_TRUE(store_->PutAttempt("lazy", orphan).ok());
  EXPECT_FALSE(StoredKeys().count(orphan_key));

  Reopen();
  Scheduler& s = *sched_;
  EXPECT_EQ(s.configs().held(), 3) << "held: the stored records and the orphan attempt's";
  const int done = s.configs().Find(done_key), half = s.configs().Find(half_key),
            orphan_at = s.configs().Find(orphan_key);
  ASSERT_GE(done, 0);
  ASSERT_GE(half, 0);
  ASSERT_EQ(orphan_at, orphan_index);
  EXPECT_EQ(s.configs().Get(done).record.state(), v1::CONFIG_STATE_DONE);
  EXPECT_EQ(s.configs().Get(done).ok_attempts, 2);
  EXPECT_EQ(s.configs().Get(half).ok_attempts, 1);
  EXPECT_EQ(s.configs().Get(orphan_at).ok_attempts, 1);
  EXPECT_EQ(s.GetProgress().attempts_ok, 4);
  EXPECT_EQ(s.GetProgress().done, 1);
  EXPECT_TRUE(StoredKeys().count(orphan_key)) << "its first count after the restart writes it";
  // Run the rest: the DONE configuration is never leased again, the others need 2 - ok more.
  std::map<std::string, int> leased;
  for (double now = 10; !s.Finished() && now < 100; now += 1) {
    for (const auto& l : s.OnWorkRequest("w", 8, now)) {
      ++leased[l.config_key()];
      ASSERT_TRUE(*s.OnResult("w", ResultFor(l, 2), now));
    }
  }
  ASSERT_TRUE(s.Finished());
  EXPECT_EQ(leased.count(done_key), 0u);
  EXPECT_EQ(leased[half_key], 1);
  EXPECT_EQ(leased[orphan_key], 1);
  EXPECT_EQ(leased.size(), 18u);
  EXPECT_EQ(StoredKeys().size(), 19u) << "a finished sweep has every record";
}

TEST_F(SchedulerSpace, AnOlderStoreWithEveryRecordUpFrontHoldsOnlyWhatChanged) {
  // What a coordinator before issue 16 wrote at Init: a PENDING record per configuration.
  std::vector<v1::ConfigRecord> all;
  for (int i = 0; i < sched_->configs().size(); ++i) all.push_back(sched_->configs().Record(i));
  all[4].set_state(v1::CONFIG_STATE_INFEASIBLE);
  all[4].set_failures(3);
  ASSERT_TRUE(store_->PutConfigs("lazy", all).ok());
  Reopen();
  EXPECT_EQ(sched_->configs().held(), 1) << "only the INFEASIBLE one differs from untouched";
  EXPECT_EQ(sched_->configs().Get(4).record.state(), v1::CONFIG_STATE_INFEASIBLE);
  EXPECT_EQ(sched_->GetProgress().infeasible, 1);
  EXPECT_EQ(sched_->GetProgress().pending, 18);
}

// Issue 16's space: 1,000,000 configurations. Init holds none and writes no record; a lease
// holds only its configuration, whose params are its index decoded (C fastest).
TEST(SchedulerMillion, InitHoldsNothingAndALeaseHoldsOnlyItsConfiguration) {
  auto d = testing::TempDir::Create();
  ASSERT_TRUE(d.ok());
  auto store = FileStore::Open(d->Join("store"));
  ASSERT_TRUE(store.ok());
  std::string levels;
  for (int i = 0; i < 100; ++i) levels += (i ? ", " : "") + std::to_string(i);
  auto spec = ParseSpecText(
      "sweep: million\nexecutor: {type: exec, command: [\"/bin/true\"]}\n"
      "parameters:\n  A: {values: [" +
          levels + "]}\n  B: {values: [" + levels + "]}\n  C: {values: [" + levels +
          "]}\n"
          "metrics: [{name: t, goal: minimize}]\n",
      "million.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  SchedulerOptions o;
  o.epoch = "e1";
  Scheduler s(*spec, o, store->get());
  ASSERT_TRUE(s.Init().ok());
  EXPECT_EQ(s.configs().size(), 1000000);
  EXPECT_EQ(s.configs().held(), 0);
  EXPECT_TRUE((*store)->LoadConfigs("million")->empty());
  EXPECT_EQ(s.GetProgress().pending, 1000000);
  v1::Hello h;
  h.mutable_node()->set_slots(2);
  s.OnHello("w", h, 0);
  auto ls = s.OnWorkRequest("w", 2, 1);
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_EQ(s.configs().held(), 2);
  for (const auto& l : ls) {
    const int index = s.configs().Find(l.config_key());
    ASSERT_GE(index, 0);
    EXPECT_EQ(l.params().at("A"), std::to_string(index / 10000));
    EXPECT_EQ(l.params().at("B"), std::to_string(index / 100 % 100));
    EXPECT_EQ(l.params().at("C"), std::to_string(index % 100));
  }
}

}  // namespace
}  // namespace fleetsweep
