#include "common/store/redis_url.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace fleetsweep {
namespace {

TEST(RedisUrlTest, Forms) {
  auto a = ParseRedisUrl("redis://127.0.0.1:6380");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 6380);
  EXPECT_EQ(a->db, 0);
  EXPECT_EQ(a->user, "");
  EXPECT_EQ(a->password, "");

  auto b = ParseRedisUrl("redis://:s3cr%40t@redis.svc/2");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->host, "redis.svc");
  EXPECT_EQ(b->port, 6379);
  EXPECT_EQ(b->db, 2);
  EXPECT_EQ(b->password, "s3cr@t");

  auto c = ParseRedisUrl("redis://alice:p:w@[::1]:7000/");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->user, "alice");
  EXPECT_EQ(c->password, "p:w");
  EXPECT_EQ(c->host, "::1");
  EXPECT_EQ(c->port, 7000);
  EXPECT_EQ(RedisEndpoint(*c), "[::1]:7000");

  auto d = ParseRedisUrl("redis://bob@h:1");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->user, "bob");
  EXPECT_EQ(d->password, "");
}

TEST(RedisUrlTest, Malformed) {
  for (const char* bad :
       {"", "redis://", "redis://:6379", "http://h:1", "rediss://h:1", "redis://h:0",
        "redis://h:70000", "redis://h:x", "redis://h:1/db", "redis://h:1?timeout=1", "redis://[::1",
        "redis://h:", "redis://:%zz@h"}) {
    auto r = ParseRedisUrl(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  auto r = ParseRedisUrl("redis://:hunter2@h:bad");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("hunter2"), std::string::npos);
}

TEST(RedisUrlTest, DescribeMasksPassword) {
  EXPECT_EQ(DescribeRedisUrl(*ParseRedisUrl("redis://:pw@h:1/2")), "redis://:***@h:1/2");
  EXPECT_EQ(DescribeRedisUrl(*ParseRedisUrl("redis://u:pw@h:1")), "redis://u:***@h:1/0");
  EXPECT_EQ(DescribeRedisUrl(*ParseRedisUrl("redis://u@h:1")), "redis://u@h:1/0");
  EXPECT_EQ(DescribeRedisUrl(*ParseRedisUrl("redis://h")), "redis://h:6379/0");
}

TEST(RedisUrlTest, EnvironmentPassword) {
  ::setenv("FLEETSWEEP_REDIS_PASSWORD", "from-env", 1);
  EXPECT_EQ(WithEnvPassword(*ParseRedisUrl("redis://h:1")).password, "from-env");
  EXPECT_EQ(WithEnvPassword(*ParseRedisUrl("redis://u@h:1")).password, "from-env");
  EXPECT_EQ(WithEnvPassword(*ParseRedisUrl("redis://:url@h:1")).password, "url");
  ::unsetenv("FLEETSWEEP_REDIS_PASSWORD");
  EXPECT_EQ(WithEnvPassword(*ParseRedisUrl("redis://h:1")).password, "");
}

}  // namespace
}  // namespace fleetsweep
