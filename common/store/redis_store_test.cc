#include "common/store/redis_store.h"

#include <hiredis/hiredis.h>
#include <stdlib.h>

#include <cmath>
#include <map>

#include "common/store/store_test_suite.h"
#include "tests/support/free_port.h"
#include "tests/support/redis_server.h"

namespace fleetsweep {
namespace {

using store_testing::MakeAttempt;
using store_testing::MakeConfig;
using testing::RedisServer;
using testing::RedisServerOptions;

struct RedisStoreFactory {
  Status SetUp() {
    server = std::make_unique<RedisServer>();
    return server->Start();
  }
  StatusOr<std::unique_ptr<ResultStore>> Open() { return OpenStore(server->url()); }
  std::unique_ptr<RedisServer> server;
};

}  // namespace

namespace store_testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Redis, ResultStoreTest, ::testing::Types<RedisStoreFactory>);
}  // namespace store_testing

namespace {

#define START_OR_SKIP(server)                                           \
  do {                                                                  \
    Status _s = (server).Start();                                       \
    if (RedisServer::IsMissingBinary(_s)) GTEST_SKIP() << _s.message(); \
    ASSERT_TRUE(_s.ok()) << _s.ToString();                              \
  } while (0)

// A raw command on a fresh connection (after AUTH with `password` when given); the reply as text.
std::string Raw(const RedisServer& server, std::vector<std::string> args,
                const std::string& password = "") {
  redisContext* c = redisConnect("127.0.0.1", server.port());
  if (c == nullptr || c->err != 0) return "<io>";
  if (!password.empty()) freeReplyObject(redisCommand(c, "AUTH %s", password.c_str()));
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* r = static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(args.size()), argv.data(), lens.data()));
  std::string out = "<io>";
  if (r != nullptr) {
    if (r->type == REDIS_REPLY_INTEGER) {
      out = std::to_string(r->integer);
    } else if (r->type == REDIS_REPLY_NIL) {
      out = "<nil>";
    } else if (r->type == REDIS_REPLY_ARRAY) {
      out = "<array " + std::to_string(r->elements) + ">";
      if (r->elements > 0 && r->element[0]->type == REDIS_REPLY_ARRAY) {
        out += " " + std::string(r->element[0]->element[0]->str, r->element[0]->element[0]->len);
      }
    } else {
      out = std::string(r->str, r->len);
    }
    freeReplyObject(r);
  }
  redisFree(c);
  return out;
}

TEST(RedisStoreTest, KeySchemaIsAsDocumented) {
  RedisServer server;
  START_OR_SKIP(server);
  auto st = RedisStore::Open(server.url());
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  RedisStore& store = **st;
  ASSERT_TRUE(store.PutSpec("sw", "spec").ok());
  ASSERT_TRUE(store.PutConfigs("sw", {MakeConfig(0, "k0")}).ok());
  v1::Attempt a = MakeAttempt(3, "k0");
  ASSERT_TRUE(*store.PutAttempt("sw", a));
  ASSERT_TRUE(store.AppendEvent("sw", "{\"e\":1}").ok());
  ASSERT_TRUE(store.AppendEvent("sw", "{\"e\":2}").ok());

  EXPECT_EQ(Raw(server, {"TYPE", "fs:{sw}:spec"}), "string");
  EXPECT_EQ(Raw(server, {"TYPE", "fs:{sw}:configs"}), "hash");
  EXPECT_EQ(Raw(server, {"TYPE", "fs:{sw}:attempts"}), "hash");
  EXPECT_EQ(Raw(server, {"TYPE", "fs:{sw}:events"}), "stream");
  EXPECT_EQ(Raw(server, {"GET", "fs:{sw}:spec"}), "spec");
  EXPECT_EQ(Raw(server, {"HGET", "fs:{sw}:attempts", "k0/" + a.attempt_id()}),
            a.SerializeAsString());
  EXPECT_EQ(Raw(server, {"XRANGE", "fs:{sw}:events", "-", "+"}), "<array 2> 1-0");
  EXPECT_EQ(Raw(server, {"XRANGE", "fs:{sw}:events", "2-0", "2-0"}), "<array 1> 2-0");
  // All four keys share one cluster slot.
  const std::string slot = Raw(server, {"CLUSTER", "KEYSLOT", "fs:{sw}:spec"});
  if (slot.find("cluster support disabled") == std::string::npos) {
    EXPECT_EQ(Raw(server, {"CLUSTER", "KEYSLOT", "fs:{sw}:events"}), slot);
  }
}

// An attempt written around PutAttempt (straight into the hash) with a NaN sample is not loaded.
TEST(RedisStoreTest, NonFiniteAttemptWrittenRawIsNotLoaded) {
  RedisServer server;
  START_OR_SKIP(server);
  auto st = RedisStore::Open(server.url());
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  ASSERT_TRUE(*(*st)->PutAttempt("sw", MakeAttempt(1, "k0")));
  v1::Attempt bad = MakeAttempt(2, "k0");
  bad.add_samples()->set_value(std::nan(""));
  EXPECT_EQ(
      Raw(server, {"HSET", "fs:{sw}:attempts", "k0/" + bad.attempt_id(), bad.SerializeAsString()}),
      "1");
  auto loaded = (*st)->LoadAttempts("sw");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].attempt_id(), MakeAttempt(1, "k0").attempt_id());
}

TEST(RedisStoreTest, PutConfigsPipelinesManyBatchesInOneTransaction) {
  RedisServer server;
  START_OR_SKIP(server);
  RedisStoreOptions opts;
  opts.batch_size = 7;
  opts.scan_count = 10;
  auto st = RedisStore::Open(server.url(), opts);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  std::vector<v1::ConfigRecord> configs;
  for (int i = 0; i < 100; ++i) configs.push_back(MakeConfig(i, "c" + std::to_string(i)));
  ASSERT_TRUE((*st)->PutConfigs("s", configs).ok());
  EXPECT_EQ(Raw(server, {"HLEN", "fs:{s}:configs"}), "100");
  auto loaded = (*st)->LoadConfigs("s");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(loaded->size(), 100u);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ((*loaded)[static_cast<size_t>(i)].config_key(), "c" + std::to_string(i));
}

TEST(RedisStoreTest, DatabaseNumberFromUrl) {
  RedisServer server;
  START_OR_SKIP(server);
  auto st = OpenStore(server.url() + "/3");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  ASSERT_TRUE((*st)->PutSpec("s", "in db 3").ok());
  EXPECT_EQ(Raw(server, {"EXISTS", "fs:{s}:spec"}), "0");
  EXPECT_EQ((*st)->Describe(), server.url() + "/3");
}

TEST(RedisStoreTest, Password) {
  RedisServerOptions opts;
  opts.password = "correct-horse";
  RedisServer server(opts);
  START_OR_SKIP(server);
  const std::string hostport = "127.0.0.1:" + std::to_string(server.port());

  auto none = OpenStore(server.url_without_credentials());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("requires a password"), std::string::npos)
      << none.status().message();

  auto wrong = OpenStore("redis://:battery-staple@" + hostport);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(wrong.status().message().find("authentication failed"), std::string::npos)
      << wrong.status().message();
  EXPECT_EQ(wrong.status().message().find("battery-staple"), std::string::npos);

  auto right = OpenStore(server.url());
  ASSERT_TRUE(right.ok()) << right.status().ToString();
  EXPECT_TRUE((*right)->PutSpec("s", "x").ok());
  EXPECT_EQ((*right)->Describe(), "redis://:***@" + hostport + "/0");
  EXPECT_EQ((*right)->Describe().find("correct-horse"), std::string::npos);

  // The environment fills in a missing password.
  ::setenv("FLEETSWEEP_REDIS_PASSWORD", "correct-horse", 1);
  auto env = OpenStore(server.url_without_credentials());
  ::unsetenv("FLEETSWEEP_REDIS_PASSWORD");
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ(**(*env)->GetSpec("s"), "x");
}

TEST(RedisStoreTest, AclUser) {
  RedisServerOptions opts;
  opts.username = "fleet";
  opts.password = "pw-acl";
  RedisServer server(opts);
  START_OR_SKIP(server);
  auto ok = OpenStore(server.url());
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(*(*ok)->PutAttempt("s", MakeAttempt(1)));
  EXPECT_EQ((*ok)->Describe().find("pw-acl"), std::string::npos);
  EXPECT_NE((*ok)->Describe().find("fleet:***@"), std::string::npos);
  auto bad = OpenStore("redis://fleet:nope@127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(bad.status().code(), StatusCode::kFailedPrecondition) << bad.status().ToString();
}

TEST(RedisStoreTest, UnreachableIsUnavailableWithEndpoint) {
  auto port = testing::FreePort();
  ASSERT_TRUE(port.ok());
  RedisStoreOptions opts;
  opts.retry_budget_ms = 200;
  auto st = RedisStore::Open("redis://127.0.0.1:" + std::to_string(*port), opts);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(st.status().message().find("redis 127.0.0.1:" + std::to_string(*port) +
                                       ": connection refused"),
            std::string::npos)
      << st.status().message();
  EXPECT_EQ(OpenStore("redis://").status().code(), StatusCode::kInvalidArgument);
}

// Redis dies mid-sweep: calls fail with kUnavailable; after it restarts (AOF) the SAME store
// instance sees all acknowledged data and works again.
TEST(RedisStoreTest, KilledThenRestartedWithAof) {
  RedisServerOptions opts;
  opts.appendonly = true;
  RedisServer server(opts);
  START_OR_SKIP(server);
  RedisStoreOptions store_opts;
  store_opts.retry_budget_ms = 300;  // keeps the outage part of the test short
  auto st = RedisStore::Open(server.url(), store_opts);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  RedisStore& store = **st;
  ASSERT_TRUE(store.PutSpec("s", "spec").ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(*store.PutAttempt("s", MakeAttempt(i)));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(store.AppendEvent("s", "e" + std::to_string(i)).ok());

  ASSERT_TRUE(server.Kill().ok());
  auto down = store.PutAttempt("s", MakeAttempt(100));
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(down.status().message().find("redis 127.0.0.1:" + std::to_string(server.port())),
            std::string::npos)
      << down.status().message();
  EXPECT_EQ(store.CountAttempts("s").status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(store.AppendEvent("s", "lost").code(), StatusCode::kUnavailable);

  ASSERT_TRUE(server.Restart().ok()) << server.LogTail();
  EXPECT_EQ(*store.CountAttempts("s"), 100);
  EXPECT_EQ(**store.GetSpec("s"), "spec");
  auto retried = store.PutAttempt("s", MakeAttempt(100));
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_TRUE(*retried) << "the attempt that failed during the outage was never stored";
  EXPECT_FALSE(*store.PutAttempt("s", MakeAttempt(5)));
  ASSERT_TRUE(store.AppendEvent("s", "e3").ok());
  EXPECT_EQ(*store.ReadEvents("s", 0, 10), (std::vector<std::string>{"e0", "e1", "e2", "e3"}));
}

// A restart between two calls is invisible: the stale connection is detected and re-made inside
// the next call (even for AppendEvent, which is not retried after it may have run).
TEST(RedisStoreTest, RestartBetweenCallsIsInvisible) {
  RedisServerOptions opts;
  opts.appendonly = true;
  RedisServer server(opts);
  START_OR_SKIP(server);
  auto st = RedisStore::Open(server.url());
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  ASSERT_TRUE((*st)->AppendEvent("s", "before").ok());
  ASSERT_TRUE(server.Restart().ok()) << server.LogTail();
  Status s = (*st)->AppendEvent("s", "after");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(*(*st)->ReadEvents("s", 0, 10), (std::vector<std::string>{"before", "after"}));
}

// A restart in the middle of ForEachAttempt's HSCAN: the scan starts over on the new connection
// and every attempt is still visited exactly once (the fields already given are skipped).
TEST(RedisStoreTest, RestartDuringForEachAttemptVisitsEachOnce) {
  RedisServerOptions opts;
  opts.appendonly = true;
  RedisServer server(opts);
  START_OR_SKIP(server);
  RedisStoreOptions store_opts;
  store_opts.scan_count = 5;  // many HSCAN batches
  auto st = RedisStore::Open(server.url(), store_opts);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  constexpr int kN = 200;
  for (int i = 0; i < kN; ++i) ASSERT_TRUE(*(*st)->PutAttempt("s", MakeAttempt(i)));
  std::map<std::string, int> visits;
  bool restarted = false;
  Status s = (*st)->ForEachAttempt("s", [&](const v1::Attempt& a) {
    ++visits[a.attempt_id()];
    if (visits.size() == 30 && !restarted) {
      restarted = true;
      Status r = server.Restart();
      if (!r.ok()) return r;
    }
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(restarted);
  EXPECT_EQ(visits.size(), static_cast<size_t>(kN));
  for (const auto& [id, n] : visits) EXPECT_EQ(n, 1) << id;
}

// A large pipelined write on a connection the server has closed must fail (and be retried)
// without SIGPIPE killing the process.
TEST(RedisStoreTest, LargeWriteOnStaleConnectionSurvives) {
  RedisServer server;
  START_OR_SKIP(server);
  auto st = RedisStore::Open(server.url());
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  std::vector<v1::ConfigRecord> configs;
  for (int i = 0; i < 20000; ++i) {
    configs.push_back(MakeConfig(i, "c" + std::to_string(i)));
    (*configs.back().mutable_params())["pad"] = std::string(200, 'p');
  }
  ASSERT_TRUE(server.Restart().ok()) << server.LogTail();
  Status s = (*st)->PutConfigs("s", configs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Raw(server, {"HLEN", "fs:{s}:configs"}), "20000");
}

}  // namespace
}  // namespace fleetsweep
