// The ONE behavioural test suite of ResultStore, run against every backend.
//
// A backend test instantiates it with a Factory type:
//
//   struct MyFactory {
//     // Prepares a fresh, empty backend. kNotFound skips the test (e.g. no redis-server binary).
//     Status SetUp();
//     // A NEW store instance on that same backend (called again by Reopen()).
//     StatusOr<std::unique_ptr<ResultStore>> Open();
//   };
//   INSTANTIATE_TYPED_TEST_SUITE_P(My, ResultStoreTest, ::testing::Types<MyFactory>);
//
// Reopen() destroys the current instance before opening the next (the file store holds a lock).
#pragma once

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "common/store/store.h"

namespace fleetsweep::store_testing {

inline v1::Attempt MakeAttempt(int i, const std::string& config_key = "") {
  v1::Attempt a;
  a.set_config_key(config_key.empty() ? "cfg" + std::to_string(i % 97) : config_key);
  a.set_attempt_id(a.config_key() + "-" + std::to_string(i));
  a.set_worker_id("w" + std::to_string(i % 4));
  a.set_node("node-" + std::to_string(i % 3));
  a.set_slot(i % 8);
  a.set_device("gpu" + std::to_string(i % 8));
  a.set_ok(i % 5 != 0);
  if (!a.ok()) {
    a.set_failure_class(v1::FAILURE_CLASS_TIMEOUT);
    a.set_failure_detail("timed out after 30 s");
  }
  auto* s = a.add_samples();
  s->set_metric("latency_seconds");
  s->set_value(0.001 * (i + 1) + 1e-9);
  a.add_samples()->set_value(-i * 1.5);
  a.set_fingerprint("fp" + std::to_string(i * 7919 % 1000));
  a.mutable_check()->set_present(true);
  a.mutable_check()->set_passed(true);
  a.mutable_check()->set_max_rel_error(1e-6);
  a.set_stdout_tail(std::string("out\0\xc3\xa9\xe2\x82\xac\n", 11) + std::to_string(i));
  a.set_started_unix_ms(1700000000000LL + i);
  a.set_duration_seconds(i * 0.25);
  a.set_exit_code(i % 3);
  (*a.mutable_info())["torch"] = "1.13";
  (*a.mutable_info())["i"] = std::to_string(i);
  return a;
}

inline v1::ConfigRecord MakeConfig(int seq, const std::string& key,
                                   v1::ConfigState state = v1::CONFIG_STATE_PENDING) {
  v1::ConfigRecord c;
  c.set_config_key(key);
  (*c.mutable_params())["BLOCK_SIZE_M"] = std::to_string(16 << (seq % 4));
  (*c.mutable_params())["use_v1"] = seq % 2 ? "true" : "false";
  c.set_state(state);
  c.set_seq(seq);
  return c;
}

inline bool SameMessage(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

// A factory whose stores answer writes before they reach the backend (WriteBehindStore) declares
// `static constexpr bool kOptimisticPuts = true;`: its PutAttempt(s) report every attempt as
// newly stored, so the suite checks idempotence by what is stored, not by that flag.
template <typename F, typename = void>
struct OptimisticPuts : std::false_type {};
template <typename F>
struct OptimisticPuts<F, std::void_t<decltype(F::kOptimisticPuts)>>
    : std::integral_constant<bool, F::kOptimisticPuts> {};

template <typename Factory>
class ResultStoreTest : public ::testing::Test {
 protected:
  static constexpr bool kReportsDuplicates = !OptimisticPuts<Factory>::value;

  void SetUp() override {
    Status s = factory_.SetUp();
    if (s.code() == StatusCode::kNotFound) GTEST_SKIP() << s.message();
    ASSERT_TRUE(s.ok()) << s.ToString();
    auto st = factory_.Open();
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(st).value();
  }

  void Reopen() {
    store_.reset();
    auto st = factory_.Open();
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(st).value();
  }

  ResultStore& store() { return *store_; }

  Factory factory_;
  std::unique_ptr<ResultStore> store_;
};

TYPED_TEST_SUITE_P(ResultStoreTest);

TYPED_TEST_P(ResultStoreTest, SpecPutGetAndConflictRejected) {
  ResultStore& st = this->store();
  auto none = st.GetSpec("s1");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());

  static const char kSpec[] = "name: demo\nspace:\n  a: [1, 2]\n\0tail\xc3\xa9";
  const std::string spec(kSpec, sizeof(kSpec) - 1);  // binary-safe: holds a NUL
  ASSERT_TRUE(st.PutSpec("s1", spec).ok());
  auto got = st.GetSpec("s1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ(**got, spec);

  EXPECT_TRUE(st.PutSpec("s1", spec).ok()) << "the same spec again is fine (resume)";
  Status conflict = st.PutSpec("s1", "name: other\n");
  EXPECT_EQ(conflict.code(), StatusCode::kAlreadyExists) << conflict.ToString();
  EXPECT_EQ(**st.GetSpec("s1"), spec) << "a rejected spec must not overwrite";

  EXPECT_TRUE(st.PutSpec("s2", "name: other\n").ok()) << "sweeps are independent";
  EXPECT_EQ(**st.GetSpec("s2"), "name: other\n");
}

TYPED_TEST_P(ResultStoreTest, ConfigsPutReplaceLoad) {
  ResultStore& st = this->store();
  auto empty = st.LoadConfigs("s");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->empty());

  std::vector<v1::ConfigRecord> configs;
  for (int i = 0; i < 1200; ++i) configs.push_back(MakeConfig(i, "k" + std::to_string(i)));
  ASSERT_TRUE(st.PutConfigs("s", configs).ok());

  // Replace two, add one.
  std::vector<v1::ConfigRecord> update = {MakeConfig(3, "k3", v1::CONFIG_STATE_DONE),
                                          MakeConfig(7, "k7", v1::CONFIG_STATE_INFEASIBLE),
                                          MakeConfig(1200, "k1200")};
  update[1].set_failures(2);
  update[1].set_last_failure(v1::FAILURE_CLASS_NOT_IMPLEMENTED);
  update[1].set_last_failure_detail("V2 raises NotImplementedError");
  ASSERT_TRUE(st.PutConfigs("s", update).ok());

  auto loaded = st.LoadConfigs("s");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(loaded->size(), 1201u);
  for (int i = 0; i <= 1200; ++i) {
    const v1::ConfigRecord& c = (*loaded)[static_cast<size_t>(i)];
    EXPECT_EQ(c.seq(), i) << "LoadConfigs is ordered by seq";
    const v1::ConfigRecord& want = i == 3      ? update[0]
                                   : i == 7    ? update[1]
                                   : i == 1200 ? update[2]
                                               : configs[static_cast<size_t>(i)];
    EXPECT_TRUE(SameMessage(c, want)) << c.DebugString();
  }

  // A bad record rejects the whole call: nothing of it is stored.
  std::vector<v1::ConfigRecord> bad = {MakeConfig(5000, "fresh"), MakeConfig(5001, "")};
  EXPECT_EQ(st.PutConfigs("s", bad).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.LoadConfigs("s")->size(), 1201u);
  EXPECT_TRUE(st.PutConfigs("s", {}).ok());
}

TYPED_TEST_P(ResultStoreTest, AttemptIdempotence) {
  ResultStore& st = this->store();
  v1::Attempt a = MakeAttempt(1);
  auto first = st.PutAttempt("s", a);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(*first);

  v1::Attempt changed = a;  // same (config_key, attempt_id), different content
  changed.set_ok(!a.ok());
  changed.clear_samples();
  auto second = st.PutAttempt("s", changed);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  if (TestFixture::kReportsDuplicates) {
    EXPECT_FALSE(*second);
  }
  EXPECT_EQ(*st.CountAttempts("s"), 1);
  auto loaded = st.LoadAttempts("s");
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_TRUE(SameMessage((*loaded)[0], a)) << "the first stored attempt is kept";

  // Another attempt of the same config is a different key.
  v1::Attempt retry = a;
  retry.set_attempt_id(a.attempt_id() + "b");
  EXPECT_TRUE(*st.PutAttempt("s", retry));
  EXPECT_EQ(*st.CountAttempts("s"), 2);
  EXPECT_EQ(*st.CountAttempts("other"), 0);

  v1::Attempt no_id = a;
  no_id.clear_attempt_id();
  EXPECT_EQ(st.PutAttempt("s", no_id).status().code(), StatusCode::kInvalidArgument);
  v1::Attempt slash = a;
  slash.set_config_key("a/b");
  EXPECT_EQ(st.PutAttempt("s", slash).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*st.CountAttempts("s"), 2);
  // A NaN or infinite sample would rank first with a median of 0: never stored.
  for (double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    v1::Attempt nonfinite = MakeAttempt(9);
    nonfinite.add_samples()->set_value(bad);
    EXPECT_EQ(st.PutAttempt("s", nonfinite).status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(*st.CountAttempts("s"), 2);

  // proto3 strings must be UTF-8 (other bytes would not parse back): free text is repaired with
  // U+FFFD, identity fields are rejected.
  v1::Attempt binary = MakeAttempt(2);
  binary.set_stderr_tail(std::string("\xff ok \xe2\x82", 7));  // junk, then a cut-off euro sign
  (*binary.mutable_info())["k"] = std::string("\xc3", 1);
  ASSERT_TRUE(*st.PutAttempt("s", binary));
  v1::Attempt bad_id = MakeAttempt(3);
  bad_id.set_attempt_id(std::string("id\xff", 3));
  EXPECT_EQ(st.PutAttempt("s", bad_id).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*st.CountAttempts("s"), 3);
  bool found = false;
  auto all = st.LoadAttempts("s");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  for (const v1::Attempt& got : *all) {
    if (got.attempt_id() != binary.attempt_id()) continue;
    found = true;
    EXPECT_EQ(got.stderr_tail(), "\xEF\xBF\xBD ok \xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(got.info().at("k"), "\xEF\xBF\xBD");
    EXPECT_EQ(got.stdout_tail(), binary.stdout_tail());
  }
  EXPECT_TRUE(found);
  std::vector<v1::ConfigRecord> bad_params = {MakeConfig(0, "kp")};
  (*bad_params[0].mutable_params())["p"] = std::string("a\x80", 2);
  ASSERT_TRUE(st.PutConfigs("s", bad_params).ok());
  EXPECT_EQ(st.LoadConfigs("s")->at(0).params().at("p"), "a\xEF\xBF\xBD");
}

TYPED_TEST_P(ResultStoreTest, PutAttemptsIsABatchOfPutAttemptAndEvents) {
  ResultStore& st = this->store();
  ASSERT_TRUE(*st.PutAttempt("s", MakeAttempt(1)));
  std::vector<v1::Attempt> batch = {MakeAttempt(2), MakeAttempt(1), MakeAttempt(3)};
  auto fresh = st.PutAttempts("s", batch, {R"({"e":1})", R"({"e":2})"});
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  if (TestFixture::kReportsDuplicates) {
    EXPECT_EQ(*fresh, (std::vector<bool>{true, false, true}));  // 1 was stored before
  }
  EXPECT_EQ(*st.CountAttempts("s"), 3);
  auto events = st.ReadEvents("s", 0, 10);
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(*events, (std::vector<std::string>{R"({"e":1})", R"({"e":2})"}));
  // One bad attempt refuses the whole batch before anything is written.
  v1::Attempt nan = MakeAttempt(5);
  nan.add_samples()->set_value(std::nan(""));
  auto refused = st.PutAttempts("s", {MakeAttempt(4), nan}, {R"({"e":3})"});
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*st.CountAttempts("s"), 3);
  EXPECT_EQ(st.ReadEvents("s", 0, 10)->size(), 2u);
  EXPECT_EQ(st.PutAttempts("bad name", {MakeAttempt(6)}, {}).status().code(),
            StatusCode::kInvalidArgument);
  auto empty = st.PutAttempts("s", {}, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TYPED_TEST_P(ResultStoreTest, ManyAttemptsRoundTripExactly) {
  constexpr int kN = 5000;
  std::map<std::string, v1::Attempt> want;
  for (int i = 0; i < kN; ++i) {
    v1::Attempt a = MakeAttempt(i);
    auto put = this->store().PutAttempt("big", a);
    ASSERT_TRUE(put.ok()) << put.status().ToString();
    ASSERT_TRUE(*put);
    want[a.config_key() + "/" + a.attempt_id()] = a;
  }
  ASSERT_TRUE(this->store().Flush().ok());
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(*this->store().CountAttempts("big"), kN);
    auto loaded = this->store().LoadAttempts("big");
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    ASSERT_EQ(loaded->size(), static_cast<size_t>(kN));
    std::map<std::string, int> seen;
    for (const v1::Attempt& a : *loaded) {
      std::string key = a.config_key() + "/" + a.attempt_id();
      ASSERT_EQ(++seen[key], 1) << "duplicate " << key;
      auto it = want.find(key);
      ASSERT_NE(it, want.end()) << key;
      ASSERT_TRUE(SameMessage(a, it->second)) << key;
    }
    this->Reopen();
  }
}

// ForEachAttempt visits exactly what LoadAttempts returns; a visit's error stops it.
TYPED_TEST_P(ResultStoreTest, ForEachAttemptVisitsWhatLoadAttemptsReturns) {
  auto& st = this->store();
  constexpr int kN = 3000;  // several of the file store's 1 MiB read windows
  for (int i = 0; i < kN; ++i) {
    v1::Attempt a = MakeAttempt(i);
    a.set_stderr_tail(std::string(400, static_cast<char>('a' + i % 26)));
    ASSERT_TRUE(st.PutAttempt("s", a).ok());
  }
  ASSERT_TRUE(st.PutAttempt("s", MakeAttempt(7)).ok());  // a duplicate: stored once
  auto loaded = st.LoadAttempts("s");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  std::map<std::string, const v1::Attempt*> want;
  for (const v1::Attempt& a : *loaded) want[a.attempt_id()] = &a;
  ASSERT_EQ(want.size(), static_cast<size_t>(kN));
  std::set<std::string> seen;
  Status visited = st.ForEachAttempt("s", [&](const v1::Attempt& a) {
    auto it = want.find(a.attempt_id());
    if (it == want.end() || !SameMessage(a, *it->second) || !seen.insert(a.attempt_id()).second) {
      return Status::Internal("unexpected or changed attempt " + a.attempt_id());
    }
    return Status::Ok();
  });
  ASSERT_TRUE(visited.ok()) << visited.ToString();
  EXPECT_EQ(seen.size(), static_cast<size_t>(kN));
  int calls = 0;
  Status stopped = st.ForEachAttempt("s", [&](const v1::Attempt&) {
    return ++calls == 2 ? Status::NotFound("enough") : Status::Ok();
  });
  EXPECT_EQ(stopped.code(), StatusCode::kNotFound);
  EXPECT_EQ(calls, 2);
  int none = 0;
  EXPECT_TRUE(st.ForEachAttempt("other", [&](const v1::Attempt&) {
                  ++none;
                  return Status::Ok();
                }).ok());
  EXPECT_EQ(none, 0);
  EXPECT_EQ(st.ForEachAttempt("bad name", [](const v1::Attempt&) { return Status::Ok(); }).code(),
            StatusCode::kInvalidArgument);
}

TYPED_TEST_P(ResultStoreTest, EventsAppendAndReadRanges) {
  ResultStore& st = this->store();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(st.AppendEvent("s", "{\"i\":" + std::to_string(i) + ",\"t\":\"x\\ny\"}").ok());
  }
  auto ev = [](int i) { return "{\"i\":" + std::to_string(i) + ",\"t\":\"x\\ny\"}"; };
  auto all = st.ReadEvents("s", 0, 100);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ((*all)[static_cast<size_t>(i)], ev(i));

  auto mid = st.ReadEvents("s", 3, 4);
  ASSERT_TRUE(mid.ok());
  EXPECT_EQ(*mid, (std::vector<std::string>{ev(3), ev(4), ev(5), ev(6)}));
  EXPECT_EQ(*st.ReadEvents("s", 8, 10), (std::vector<std::string>{ev(8), ev(9)}));
  EXPECT_TRUE(st.ReadEvents("s", 10, 5)->empty());
  EXPECT_TRUE(st.ReadEvents("s", 1000, 5)->empty());
  EXPECT_TRUE(st.ReadEvents("s", 0, 0)->empty());
  EXPECT_TRUE(st.ReadEvents("nobody", 0, 10)->empty());
  EXPECT_EQ(st.ReadEvents("s", -1, 5).status().code(), StatusCode::kInvalidArgument);

  ASSERT_TRUE(st.AppendEvent("s", ev(10)).ok());
  EXPECT_EQ(*st.ReadEvents("s", 10, 1), (std::vector<std::string>{ev(10)}));
}

TYPED_TEST_P(ResultStoreTest, ReopenSeesEverything) {
  ResultStore& st = this->store();
  ASSERT_TRUE(st.PutSpec("s", "name: s\n").ok());
  ASSERT_TRUE(st.PutConfigs("s", {MakeConfig(0, "a"), MakeConfig(1, "b")}).ok());
  ASSERT_TRUE(st.PutConfigs("s", {MakeConfig(1, "b", v1::CONFIG_STATE_DONE)}).ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(*st.PutAttempt("s", MakeAttempt(i)));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(st.AppendEvent("s", "e" + std::to_string(i)).ok());
  ASSERT_TRUE(st.Flush().ok());

  this->Reopen();
  ResultStore& again = this->store();
  EXPECT_EQ(**again.GetSpec("s"), "name: s\n");
  EXPECT_EQ(again.PutSpec("s", "name: changed\n").code(), StatusCode::kAlreadyExists);
  auto configs = again.LoadConfigs("s");
  ASSERT_TRUE(configs.ok());
  ASSERT_EQ(configs->size(), 2u);
  EXPECT_EQ((*configs)[1].state(), v1::CONFIG_STATE_DONE);
  EXPECT_EQ(*again.CountAttempts("s"), 20);
  auto seven = again.PutAttempt("s", MakeAttempt(7));
  ASSERT_TRUE(seven.ok());
  if (TestFixture::kReportsDuplicates) {
    EXPECT_FALSE(*seven) << "idempotence survives a reopen";
  }
  EXPECT_EQ(*again.CountAttempts("s"), 20);
  EXPECT_EQ(again.ReadEvents("s", 0, 100)->size(), 5u);
  ASSERT_TRUE(again.AppendEvent("s", "e5").ok());
  EXPECT_EQ(*again.ReadEvents("s", 5, 1), (std::vector<std::string>{"e5"}));
}

TYPED_TEST_P(ResultStoreTest, ListSweepsNamesEverySweepWithASpec) {
  ResultStore& st = this->store();
  ASSERT_TRUE(st.PutSpec("list-b", "b").ok());
  ASSERT_TRUE(st.PutSpec("list-a", "a").ok());
  v1::ConfigRecord c;
  c.set_config_key("k");
  ASSERT_TRUE(st.PutConfigs("list-nospec", {c}).ok());
  auto names = st.ListSweeps();
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  EXPECT_TRUE(std::is_sorted(names->begin(), names->end()));
  auto has = [&](const std::string& n) {
    return std::find(names->begin(), names->end(), n) != names->end();
  };
  EXPECT_TRUE(has("list-a"));
  EXPECT_TRUE(has("list-b"));
  EXPECT_FALSE(has("list-nospec")) << "configurations without a spec are not a sweep";
  this->Reopen();
  auto again = this->store().ListSweeps();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *names);
}

TYPED_TEST_P(ResultStoreTest, BadSweepNamesRejected) {
  ResultStore& st = this->store();
  const std::vector<std::string> bad = {"", "a b", "a{b}", "a/b", std::string("a\0b", 3)};
  for (const std::string& name : bad) {
    EXPECT_EQ(st.PutSpec(name, "x").code(), StatusCode::kInvalidArgument) << name;
    EXPECT_EQ(st.CountAttempts(name).status().code(), StatusCode::kInvalidArgument) << name;
  }
  EXPECT_TRUE(st.PutSpec("bi-v100_moe.2024-06", "x").ok());
  EXPECT_FALSE(st.Describe().empty());
}

REGISTER_TYPED_TEST_SUITE_P(ResultStoreTest, SpecPutGetAndConflictRejected, ConfigsPutReplaceLoad,
                            AttemptIdempotence, PutAttemptsIsABatchOfPutAttemptAndEvents,
                            ManyAttemptsRoundTripExactly,
                            ForEachAttemptVisitsWhatLoadAttemptsReturns, EventsAppendAndReadRanges,
                            ReopenSeesEverything, BadSweepNamesRejected,
                            ListSweepsNamesEverySweepWithASpec);

}  // namespace fleetsweep::store_testing
