#include "tests/support/redis_server.h"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <string>

#include "tests/support/free_port.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep::testing {
namespace {

// Runs one command on a fresh connection; returns the reply as text ("ERR..." for errors, "<nil>"
// for nil, "<io:...>" when the connection failed).
std::string Command(int port, const std::vector<std::string>& args) {
  timeval tv{2, 0};
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port, tv);
  if (c == nullptr || c->err != 0) {
    std::string e = c != nullptr ? c->errstr : "oom";
    if (c != nullptr) redisFree(c);
    return "<io:" + e + ">";
  }
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* r = static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()));
  std::string out;
  if (r == nullptr) {
    out = std::string("<io:") + c->errstr + ">";
  } else if (r->type == REDIS_REPLY_NIL) {
    out = "<nil>";
  } else if (r->type == REDIS_REPLY_INTEGER) {
    out = std::to_string(r->integer);
  } else if (r->str != nullptr) {
    out = std::string(r->str, r->len);
  }
  if (r != nullptr) freeReplyObject(r);
  redisFree(c);
  return out;
}

#define START_OR_SKIP(server)                                           \
  do {                                                                  \
    Status _s = (server).Start();                                       \
    if (RedisServer::IsMissingBinary(_s)) GTEST_SKIP() << _s.message(); \
    ASSERT_TRUE(_s.ok()) << _s.ToString();                              \
  } while (0)

TEST(FreePortTest, ReturnsUsablePort) {
  auto p = FreePort();
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_GT(*p, 0);
  EXPECT_LT(*p, 65536);
}

TEST(TempDirTest, CreatedAndRemoved) {
  std::string path;
  {
    auto d = TempDir::Create("fs-tempdir-test");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    path = d->path();
    EXPECT_EQ(::access(path.c_str(), W_OK), 0);
    FILE* f = std::fopen(d->Join("x").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    TempDir moved = std::move(d).value();
    EXPECT_EQ(moved.path(), path);
  }
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
}

TEST(RedisServerTest, StartsAnswersAndStops) {
  RedisServer server;
  START_OR_SKIP(server);
  EXPECT_EQ(server.url(), "redis://127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(Command(server.port(), {"SET", "k", "v"}), "OK");
  EXPECT_EQ(Command(server.port(), {"GET", "k"}), "v");
  ASSERT_TRUE(server.Stop().ok());
  EXPECT_FALSE(server.running());
  EXPECT_EQ(Command(server.port(), {"PING"}).rfind("<io:", 0), 0u);
}

TEST(RedisServerTest, RestartWithAofKeepsPortAndData) {
  RedisServerOptions opts;
  opts.appendonly = true;
  RedisServer server(opts);
  START_OR_SKIP(server);
  const int port = server.port();
  EXPECT_EQ(Command(port, {"SET", "k", "durable"}), "OK");
  ASSERT_TRUE(server.Kill().ok());
  EXPECT_EQ(Command(port, {"PING"}).rfind("<io:", 0), 0u);
  ASSERT_TRUE(server.Restart().ok()) << server.LogTail();
  EXPECT_EQ(server.port(), port);
  EXPECT_EQ(Command(port, {"GET", "k"}), "durable");
}

TEST(RedisServerTest, WithoutAofRestartLosesData) {
  RedisServer server;
  START_OR_SKIP(server);
  EXPECT_EQ(Command(server.port(), {"SET", "k", "v"}), "OK");
  ASSERT_TRUE(server.Restart().ok());
  EXPECT_EQ(Command(server.port(), {"GET", "k"}), "<nil>");
}

TEST(RedisServerTest, PasswordIsRequired) {
  RedisServerOptions opts;
  opts.password = "pw1";
  RedisServer server(opts);
  START_OR_SKIP(server);
  EXPECT_EQ(server.url(), "redis://:pw1@127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(Command(server.port(), {"GET", "k"}).rfind("NOAUTH", 0), 0u);
}

TEST(RedisServerTest, AclUser) {
  RedisServerOptions opts;
  opts.username = "alice";
  opts.password = "pw2";
  RedisServer server(opts);
  START_OR_SKIP(server);
  EXPECT_EQ(server.url(), "redis://alice:pw2@127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(Command(server.port(), {"AUTH", "alice", "pw2"}), "OK");
  EXPECT_NE(Command(server.port(), {"AUTH", "alice", "nope"}), "OK");
}

}  // namespace
}  // namespace fleetsweep::testing
