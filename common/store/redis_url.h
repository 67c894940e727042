// RedisUrl: where and how to reach a Redis server, parsed from
//
//   redis://[[user][:password]@]host[:port][/db]
//
// e.g. "redis://127.0.0.1:6379", "redis://:s3cret@redis:6379/2", "redis://alice:pw@[::1]:7000".
// User and password may be percent-encoded ("%40" for '@'). The port defaults to 6379, the db
// to 0. A user without a password ("redis://alice@host") is kept for AUTH with the password from
// the environment (WithEnvPassword).
//
// Thread-safety: pure functions (WithEnvPassword reads the environment).
#pragma once

#include <string>

#include "common/status.h"

namespace fleetsweep {

struct RedisUrl {
  std::string host;
  int port = 6379;
  int db = 0;
  std::string user;      // empty: the default user
  std::string password;  // empty: no AUTH
};

// Errors: kInvalidArgument naming what is wrong (never echoing the password).
StatusOr<RedisUrl> ParseRedisUrl(const std::string& url);

// When `url` has no password and FLEETSWEEP_REDIS_PASSWORD is set (non-empty), returns a copy
// carrying that password; otherwise `url` unchanged.
RedisUrl WithEnvPassword(RedisUrl url);

// "redis://host:port/db", with "user:***@" or ":***@" when credentials exist. Never the password.
std::string DescribeRedisUrl(const RedisUrl& url);

// "host:port" (IPv6 hosts in brackets), for error messages.
std::string RedisEndpoint(const RedisUrl& url);

}  // namespace fleetsweep
