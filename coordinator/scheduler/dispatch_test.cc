// Assignment and adaptive repetitions of the scheduler (dispatch.cc, repetition.cc): executions
// spread over nodes, warm-session affinity, the reference interleaved, and stage 2 (contenders
// for the lead run to repetitions.max, clearly separated configurations stop at min).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "common/stats/rng.h"
#include "common/store/file_store.h"
#include "coordinator/scheduler/scheduler.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

struct Fixture {
  std::optional<testing::TempDir> dir;
  SweepSpec spec;
  std::unique_ptr<FileStore> store;
  std::unique_ptr<Scheduler> sched;

  explicit Fixture(const std::string& text) {
    auto d = testing::TempDir::Create();
    EXPECT_TRUE(d.ok());
    dir.emplace(std::move(d).value());
    auto s = ParseSpecText(text, "t.yaml");
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    spec = std::move(s).value();
    auto st = FileStore::Open(dir->Join("store"));
    EXPECT_TRUE(st.ok());
    store = std::move(st).value();
    sched = std::make_unique<Scheduler>(spec, SchedulerOptions{}, store.get());
    EXPECT_TRUE(sched->Init().ok());
  }
  void Hello(const std::string& id, int slots = 1) {
    v1::Hello h;
    h.mutable_node()->set_node(id);
    h.mutable_node()->set_slots(slots);
    sched->OnHello(id, h, 0);
  }
  // Answers a lease with `samples` samples around value(params).
  void Answer(const std::string& worker, const v1::Lease& l, double value, stats::Rng* rng,
              int samples = 3) {
    v1::Result r;
    r.set_lease_id(l.lease_id());
    r.set_sweep(l.sweep());
    auto* a = r.mutable_attempt();
    a->set_config_key(l.config_key());
    a->set_attempt_id(l.lease_id());
    a->set_ok(true);
    a->set_reference(l.reference());
    a->set_node(worker);
    const double shift = 1 + 0.01 * (rng->Uniform01() - 0.5);
    for (int i = 0; i < samples; ++i) {
      auto* s = a->add_samples();
      s->set_metric("t");
      s->set_value(value * shift * (1 + 0.002 * (rng->Uniform01() - 0.5)));
    }
    EXPECT_TRUE(sched->OnResult(worker, r, 0).ok());
  }
};

std::string Spec(const std::string& params, const std::string& reps,
                 const std::string& extra = "") {
  return "sweep: d\nexecutor: {type: exec, command: [\"/bin/true\"], timeout: 5}\nparameters:\n" +
         params + "repetitions: " + reps + "\nmetrics: [{name: t, goal: minimize}]\n" + extra;
}

// Two single-slot workers taking turns: round-robin would pin each configuration to one node;
// every configuration must be measured on both, evenly.
TEST(Dispatch, ExecutionsSpreadEvenlyOverNodes) {
  Fixture f(Spec("  A: {values: [1, 2, 3, 4, 5]}\n", "{min: 4, max: 4, target_rel_ci: 0.5}"));
  f.Hello("n0");
  f.Hello("n1");
  stats::Rng rng(1);
  std::map<std::string, std::map<std::string, int>> runs;  // config -> node -> executions
  for (int round = 0; round < 200 && !f.sched->Finished(); ++round) {
    for (const char* w : {"n0", "n1"}) {
      for (auto& l : f.sched->OnWorkRequest(w, 1, 0)) {
        if (!l.reference()) runs[l.config_key()][w]++;
        f.Answer(w, l, 10 + std::stoi(l.params().at("A")), &rng);
      }
    }
  }
  ASSERT_TRUE(f.sched->Finished());
  ASSERT_EQ(runs.size(), 5u);
  for (const auto& [key, by_node] : runs) {
    EXPECT_EQ(by_node.size(), 2u) << key << " ran on one node only";
    for (const auto& [node, n] : by_node) EXPECT_LE(n, 3) << key << " on " << node;
  }
}

TEST(Dispatch, OpenSessionKeysAttractMatchingConfigurations) {
  Fixture f(Spec("  model: {values: [m1, m2, m3]}\n  B: {values: [1, 2, 3, 4]}\n",
                 "{min: 1, max: 1, target_rel_ci: 0.5}"));
  f.Hello("n0", 4);
  v1::WorkRequest req;
  req.set_free_slots(2);
  (*req.add_open_sessions()->mutable_params())["model"] = "m2";
  (*req.add_open_sessions()->mutable_params())["model"] = "m3";
  auto leases = f.sched->OnWorkRequest("n0", req, 0);
  ASSERT_EQ(leases.size(), 2u);
  std::set<std::string> models;
  for (const auto& l : leases) models.insert(l.params().at("model"));
  EXPECT_EQ(models, (std::set<std::string>{"m2", "m3"}));
}

// A session key that is the whole configuration (an engine restart per key): one slot that
// always names its open session runs each configuration's executions in one stretch, so the
// engine starts once per configuration, not once per execution.
TEST(Dispatch, AffinityKeepsASlotOnItsKeyWhileItHasWork) {
  Fixture f(Spec("  model: {values: [m1, m2, m3]}\n", "{min: 3, max: 3, target_rel_ci: 0.5}"));
  f.Hello("n0", 1);
  stats::Rng rng(1);
  std::string open, order;
  int switches = 0;
  for (int round = 0; round < 100 && !f.sched->Finished(); ++round) {
    v1::WorkRequest req;
    req.set_free_slots(1);
    if (!open.empty()) (*req.add_open_sessions()->mutable_params())["model"] = open;
    for (auto& l : f.sched->OnWorkRequest("n0", req, 0)) {
      const std::string m = l.params().at("model");
      if (!open.empty() && m != open) ++switches;
      open = m;
      order += m + " ";
      f.Answer("n0", l, 10, &rng);
    }
  }
  ASSERT_TRUE(f.sched->Finished());
  EXPECT_EQ(switches, 2) << order;
}

// The adaptive stages: two names for one configuration overlap after stage 1, so both run to
// repetitions.max (the winner test then sees many executions); a configuration 30% slower is
// clearly apart and stops at repetitions.min.
TEST(Repetitions, ContendersRunToMaxOthersStopAtMin) {
  Fixture f(Spec("  alias: {values: [a, b]}\n  N: {values: [1, 2]}\n",
                 "{min: 3, max: 8, target_rel_ci: 0.5}"));
  f.Hello("n0", 2);
  stats::Rng rng(7);
  std::map<std::string, int> runs;  // "alias,N" -> executions
  for (int round = 0; round < 500 && !f.sched->Finished(); ++round) {
    for (auto& l : f.sched->OnWorkRequest("n0", 2, 0)) {
      const int n = std::stoi(l.params().at("N"));
      if (!l.reference()) runs[l.params().at("alias") + "," + l.params().at("N")]++;
      f.Answer("n0", l, 10 * (n == 1 ? 1.0 : 1.3), &rng);
    }
  }
  ASSERT_TRUE(f.sched->Finished());
  EXPECT_EQ(runs["a,1"], 8);
  EXPECT_EQ(runs["b,1"], 8);
  EXPECT_EQ(runs["a,2"], 3);  // (the two N=2 names tie with each other, but not for the lead)
  EXPECT_EQ(runs["b,2"], 3);
}

TEST(Repetitions, ExtensionCanBeTurnedOff) {
  auto d = testing::TempDir::Create();
  ASSERT_TRUE(d.ok());
  auto spec = ParseSpecText(
      Spec("  alias: {values: [a, b]}\n", "{min: 3, max: 8, target_rel_ci: 0.5}"), "t.yaml");
  ASSERT_TRUE(spec.ok());
  auto store = FileStore::Open(d->Join("s"));
  ASSERT_TRUE(store.ok());
  SchedulerOptions o;
  o.extend_contenders = false;
  Scheduler s(*spec, o, store->get());
  ASSERT_TRUE(s.Init().ok());
  v1::Hello h;
  h.mutable_node()->set_node("n0");
  h.mutable_node()->set_slots(1);
  s.OnHello("n0", h, 0);
  int leases = 0;
  for (int round = 0; round < 100 && !s.Finished(); ++round) {
    for (auto& l : s.OnWorkRequest("n0", 1, 0)) {
      ++leases;
      v1::Result r;
      r.set_lease_id(l.lease_id());
      r.set_sweep(l.sweep());
      r.mutable_attempt()->set_config_key(l.config_key());
      r.mutable_attempt()->set_attempt_id(l.lease_id());
      r.mutable_attempt()->set_ok(true);
      auto* smp = r.mutable_attempt()->add_samples();
      smp->set_metric("t");
      smp->set_value(10 + 0.01 * leases);
      ASSERT_TRUE(s.OnResult("n0", r, 0).ok());
    }
  }
  EXPECT_EQ(leases, 6);
}

}  // namespace
}  // namespace fleetsweep
