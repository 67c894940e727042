// `fleetsweep watch` against a real redis-server: the store is populated through the store API
// the coordinator and workers use, then snapshots are checked (progress, best, new events).
#include "coordinator/cli/watch.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/store/store.h"
#include "tests/support/redis_server.h"

namespace fleetsweep {
namespace {

using testing::RedisServer;

constexpr char kSpec[] =
    "sweep: w\nexecutor: {type: exec, command: [x]}\n"
    "parameters:\n  BM: {values: [16, 32, 64]}\n"
    "metrics: [{name: time_ms, goal: minimize}]\n";

v1::ConfigRecord Record(const std::string& key, const std::string& bm, v1::ConfigState state,
                        int seq) {
  v1::ConfigRecord r;
  r.set_config_key(key);
  (*r.mutable_params())["BM"] = bm;
  r.set_state(state);
  r.set_seq(seq);
  return r;
}

v1::Attempt Attempt(const std::string& key, const std::string& id, std::vector<double> values,
                    bool ok = true) {
  v1::Attempt a;
  a.set_config_key(key);
  a.set_attempt_id(id);
  a.set_node("node-a");
  a.set_ok(ok);
  if (!ok) a.set_failure_class(v1::FAILURE_CLASS_EXIT_CODE);
  for (double v : values) {
    auto* s = a.add_samples();
    s->set_metric("time_ms");
    s->set_value(v);
  }
  return a;
}

TEST(Watch, SnapshotsFollowARedisSweep) {
  RedisServer server;
  Status st = server.Start();
  if (RedisServer::IsMissingBinary(st)) GTEST_SKIP() << st.message();
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto store = OpenStore(server.url());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ResultStore& s = **store;
  ASSERT_TRUE(s.PutSpec("w", kSpec).ok());
  ASSERT_TRUE(s.PutConfigs("w", {Record("k16", "16", v1::CONFIG_STATE_DONE, 0),
                                 Record("k32", "32", v1::CONFIG_STATE_LEASED, 1),
                                 Record("k64", "64", v1::CONFIG_STATE_INFEASIBLE, 2)})
                  .ok());
  ASSERT_TRUE(s.PutAttempt("w", Attempt("k16", "k16-1", {5.0, 5.2, 5.1})).ok());
  ASSERT_TRUE(s.PutAttempt("w", Attempt("k32", "k32-1", {2.0, 2.1, 2.2})).ok());
  ASSERT_TRUE(s.PutAttempt("w", Attempt("k64", "k64-1", {}, false)).ok());
  ASSERT_TRUE(
      s.AppendEvent("w", R"({"type":"attempt","config_key":"k16","node":"node-a","ok":true})")
          .ok());

  auto reader = OpenStore(server.url());
  ASSERT_TRUE(reader.ok());
  Watcher w(reader->get(), "w");
  std::ostringstream first;
  ASSERT_TRUE(w.Snapshot(first).ok());
  const std::string a = first.str();
  EXPECT_NE(a.find("1/3 done"), std::string::npos) << a;
  EXPECT_NE(a.find("1 infeasible"), std::string::npos) << a;
  EXPECT_NE(a.find("1 running"), std::string::npos) << a;
  EXPECT_NE(a.find("3 executions (1 failed)"), std::string::npos) << a;
  // Best first: BM=32 (median 2.1) before BM=16 (5.1).
  ASSERT_NE(a.find("1.          2.1"), std::string::npos) << a;
  EXPECT_LT(a.find("BM=32"), a.find("BM=16")) << a;
  EXPECT_NE(a.find("attempt config_key=k16 node=node-a ok=true"), std::string::npos) << a;
  EXPECT_FALSE(w.progress().finished());

  // The sweep moves on: a new event and the last configuration done.
  ASSERT_TRUE(s.AppendEvent("w", R"({"type":"attempt","config_key":"k32","ok":true})").ok());
  ASSERT_TRUE(
      s.AppendEvent(
           "w",
           R"({"type":"attempt","config_key":"k64","ok":false,"failure":"FAILURE_CLASS_LAUNCH"})")
          .ok());
  ASSERT_TRUE(s.PutConfigs("w", {Record("k32", "32", v1::CONFIG_STATE_DONE, 1)}).ok());
  std::ostringstream second;
  ASSERT_TRUE(w.Snapshot(second).ok());
  EXPECT_NE(second.str().find("config_key=k32"), std::string::npos) << second.str();
  EXPECT_NE(second.str().find("events 3"), std::string::npos) << second.str();
  // Failure classes as users read them, not the protobuf enum's names.
  EXPECT_NE(second.str().find("ok=false failure=launch"), std::string::npos) << second.str();
  EXPECT_EQ(second.str().find("FAILURE_CLASS"), std::string::npos) << second.str();
  EXPECT_TRUE(w.progress().finished());
  EXPECT_NE(second.str().find("finished"), std::string::npos);

  // The CLI loop: --once prints one snapshot; an unknown sweep is an error.
  std::atomic<bool> stop{false};
  std::ostringstream out, err;
  EXPECT_EQ(RunWatch(server.url(), "w", true, 1.0, stop, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("2/3 done"), std::string::npos) << out.str();
  EXPECT_EQ(RunWatch(server.url(), "nope", true, 1.0, stop, out, err), 2);
  EXPECT_NE(err.str().find("not found"), std::string::npos) << err.str();
  // A finished sweep ends the refreshing loop by itself.
  std::ostringstream loop;
  EXPECT_EQ(RunWatch(server.url(), "w", false, 0.1, stop, loop, err), 0);
}

}  // namespace
}  // namespace fleetsweep
