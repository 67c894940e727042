// RedisServer: a real redis-server child process for tests, on a free loopback port, with its data
// in a private temp dir.
//
//   RedisServerOptions opts;
//   opts.password = "s3cret";
//   opts.appendonly = true;
//   fleetsweep::testing::RedisServer server(opts);
//   Status s = server.Start();
//   if (RedisServer::IsMissingBinary(s)) GTEST_SKIP() << s.message();
//   ASSERT_TRUE(s.ok()) << s.ToString();
//   OpenStore(server.url());          // "redis://:s3cret@127.0.0.1:40123"
//   server.Kill();                     // SIGKILL: a crash
//   server.Restart();                  // same port, same dir: the AOF replays
//
// Lifecycle:
//   * Start() creates the temp dir (first call), picks a free port (first call), writes
//     redis.conf there, spawns redis-server and waits until an authenticated PING answers PONG
//     (bounded by options.startup_timeout_ms; a LOADING reply during AOF replay counts as not
//     ready). If the port was taken between picking and binding, it retries with a new port.
//   * Stop() sends SIGTERM and waits for exit (Redis flushes its AOF on SIGTERM); after 10 s it
//     falls back to SIGKILL. Kill() sends SIGKILL and reaps the child (a crash).
//   * Restart() = Stop() if running, then start again on the SAME port and data dir.
//   * The destructor kills a running server and removes the data dir.
// The child gets PR_SET_PDEATHSIG=SIGKILL, so a crashed test binary leaves no stray server.
//
// Errors: kNotFound when no redis-server binary exists (IsMissingBinary() is true: tests should
// GTEST_SKIP with the message); kUnavailable when the server exits during startup or never
// answers (the message carries the tail of its log); kFailedPrecondition for Start() while
// running. Every method returns a Status; none throws.
//
// The binary is $FLEETSWEEP_REDIS_SERVER if set, else /usr/bin/redis-server, else `redis-server`
// found on $PATH.
//
// Thread-safety: not thread-safe; one owner (the test).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "common/status.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep::testing {

struct RedisServerOptions {
  // Empty: no authentication. Set alone: `requirepass` for the default user. Set with `username`:
  // an ACL user `username` with all permissions and this password, and the default user disabled.
  std::string password;
  std::string username;
  // AOF persistence with `appendfsync always` (every acknowledged write is on disk).
  bool appendonly = false;
  // How long Start()/Restart() wait for PONG. Generous for loaded 2-core CI machines.
  int startup_timeout_ms = 15000;
};

class RedisServer {
 public:
  explicit RedisServer(RedisServerOptions options = {});
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  Status Start();
  Status Stop();
  Status Kill();
  Status Restart();

  bool running() const { return pid_ > 0; }
  // 0 before the first Start().
  int port() const { return port_; }
  // "redis://127.0.0.1:PORT", "redis://:PW@127.0.0.1:PORT" or "redis://USER:PW@127.0.0.1:PORT".
  std::string url() const;
  // The same without credentials: "redis://127.0.0.1:PORT".
  std::string url_without_credentials() const;
  // The data dir (redis.conf, redis.log, appendonlydir/); empty before the first Start().
  std::string dir() const;
  // The last `max_bytes` of redis.log, for failure messages.
  std::string LogTail(size_t max_bytes = 2000) const;

  // True when `s` is the Start() error for "no redis-server binary on this machine".
  static bool IsMissingBinary(const Status& s) { return s.code() == StatusCode::kNotFound; }
  // The redis-server binary to run, or kNotFound.
  static StatusOr<std::string> FindBinary();

 private:
  Status WriteConfig() const;
  Status Spawn();
  Status WaitReady();
  Status Probe() const;  // OK when an authenticated PING answers PONG
  void Reap(int timeout_ms);

  RedisServerOptions options_;
  std::optional<TempDir> dir_;
  std::string binary_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace fleetsweep::testing
