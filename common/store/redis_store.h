// RedisStore: the ResultStore in Redis (hiredis, blocking), the source of truth in cluster mode.
//
// KEY SCHEMA (one sweep = four keys; "{sweep}" is a Redis Cluster hash tag, so a sweep's keys share
// one slot and MULTI/EXEC and Lua over them stay legal on a cluster):
//
//   fs:{S}:spec      STRING  the spec YAML text. Written with SET NX: first writer wins; a
//                            different text later is kAlreadyExists, the same text is OK.
//   fs:{S}:configs   HASH    config_key -> serialized v1::ConfigRecord. PutConfigs writes all of
//                            its records in ONE MULTI/EXEC transaction (HSETs of `batch_size`
//                            fields each, pipelined), so a call is applied entirely or not at all;
//                            an existing config_key is replaced.
//   fs:{S}:attempts  HASH    "<config_key>/<attempt_id>" -> serialized v1::Attempt, written with
//                            HSETNX: a key is stored once and never overwritten (idempotence).
//   fs:{S}:events    STREAM  one entry per event, field "e" = the JSON line. Entry IDs are
//                            "<index+1>-0" (index 0-based), assigned atomically by a Lua script
//                            (XLEN + 1, then XADD), so ReadEvents(from, max) is
//                            XRANGE fs:{S}:events (from+1)-0 + COUNT max, and `fleetsweep watch`
//                            can follow new events with XREAD BLOCK. Never trim this stream.
//
// Sweep names are checked (store_checks.h): no braces, no spaces, no '/'. Values are binary-safe
// (redisCommandArgv with explicit lengths).
//
// CONSISTENCY
//   * Every write is acknowledged by Redis before the call returns OK; durability beyond that is
//     Redis's AOF setting (`appendonly yes` + `appendfsync always` or `everysec`). Flush() is a
//     no-op.
//   * Loads use HSCAN (COUNT scan_count): entries present for the whole load are returned exactly
//     once; entries written concurrently may or may not appear. If the connection is re-made in
//     the middle of a scan, the scan restarts from the beginning.
//   * Retries: a call that hits a broken connection reconnects and retries with backoff (25 ms
//     doubling to 400 ms) until options.retry_budget_ms has passed, then returns kUnavailable
//     ("redis 127.0.0.1:6379: connection refused (gave up after 2000 ms)"). The NEXT call tries to
//     reconnect again, so a Redis restart mid-sweep only costs the calls made while it was down.
//     Idempotent calls (everything but AppendEvent) are retried after any connection failure; a
//     retried PutAttempt whose first try did land reports false ("already stored"). AppendEvent
//     is retried only when its command cannot have run (connect failed, Redis answered LOADING,
//     or the connection was a stale one from an earlier call), so an event is duplicated only if
//     Redis dies between executing it and replying on a connection made during the same call.
//     A command that times out (options.command_timeout_ms) is not retried: kUnavailable.
//   * Authentication: AUTH [user] password on every (re)connection, then SELECT db. A wrong
//     password, or a server that wants one and got none, is kFailedPrecondition with a message
//     that says so; the password never appears in messages or in Describe().
//   * Not supported: Redis Cluster redirections (MOVED/ASK), TLS, Sentinel.
//
// Thread-safety: NOT thread-safe; one connection per instance. Give each thread its own store.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/store/redis_url.h"
#include "common/store/store.h"

struct redisContext;
struct redisReply;

namespace fleetsweep {

struct RedisStoreOptions {
  int connect_timeout_ms = 2000;
  int command_timeout_ms = 10000;
  // Total time one call spends reconnecting/retrying before it returns kUnavailable.
  int retry_budget_ms = 2000;
  // Configs per HSET command in PutConfigs.
  int batch_size = 500;
  // COUNT hint of HSCAN in LoadConfigs/LoadAttempts.
  int scan_count = 1000;
};

class RedisStore : public ResultStore {
 public:
  // Parses `url` (redis_url.h; FLEETSWEEP_REDIS_PASSWORD fills a missing password), connects,
  // authenticates and PINGs. Errors: kInvalidArgument (bad URL), kUnavailable (unreachable within
  // the retry budget), kFailedPrecondition (authentication).
  static StatusOr<std::unique_ptr<RedisStore>> Open(const std::string& url,
                                                    RedisStoreOptions options = {});
  static StatusOr<std::unique_ptr<RedisStore>> Open(const RedisUrl& url,
                                                    RedisStoreOptions options = {});
  ~RedisStore() override;
  RedisStore(const RedisStore&) = delete;
  RedisStore& operator=(const RedisStore&) = delete;

  Status PutSpec(const std::string& sweep, const std::string& spec_yaml) override;
  StatusOr<std::optional<std::string>> GetSpec(const std::string& sweep) override;
  // SCAN MATCH fs:{*}:spec (restarted when the connection drops mid-scan).
  StatusOr<std::vector<std::string>> ListSweeps() override;
  Status PutConfigs(const std::string& sweep,
                    const std::vector<v1::ConfigRecord>& configs) override;
  StatusOr<std::vector<v1::ConfigRecord>> LoadConfigs(const std::string& sweep) override;
  StatusOr<bool> PutAttempt(const std::string& sweep, const v1::Attempt& attempt) override;
  // One pipeline: HSETNX per attempt, then the events (a batch with events is retried only if
  // not executed). PutAttempt and AppendEvent are batches of one (PutBatch).
  StatusOr<std::vector<bool>> PutAttempts(const std::string& sweep,
                                          const std::vector<v1::Attempt>& attempts,
                                          const std::vector<std::string>& events) override;
  StatusOr<std::vector<v1::Attempt>> LoadAttempts(const std::string& sweep) override;
  // HSCAN batch by batch (ScanFields): holds the field names seen, not the attempts.
  Status ForEachAttempt(const std::string& sweep,
                        const std::function<Status(const v1::Attempt&)>& visit) override;
  StatusOr<int64_t> CountAttempts(const std::string& sweep) override;
  Status AppendEvent(const std::string& sweep, const std::string& event_json) override;
  StatusOr<std::vector<std::string>> ReadEvents(const std::string& sweep, int64_t from,
                                                int64_t max) override;
  Status Flush() override { return Status::Ok(); }
  std::string Describe() const override { return DescribeRedisUrl(url_); }

  // The key schema above, for tools and tests.
  static std::string SpecKey(const std::string& sweep) { return "fs:{" + sweep + "}:spec"; }
  static std::string ConfigsKey(const std::string& sweep) { return "fs:{" + sweep + "}:configs"; }
  static std::string AttemptsKey(const std::string& sweep) { return "fs:{" + sweep + "}:attempts"; }
  static std::string EventsKey(const std::string& sweep) { return "fs:{" + sweep + "}:events"; }

 private:
  using Args = std::vector<std::string>;
  struct ReplyDeleter {
    void operator()(redisReply* r) const;
  };
  using Reply = std::unique_ptr<redisReply, ReplyDeleter>;
  enum class Retry { kIdempotent, kOnlyIfNotExecuted };
  // Why a pipeline failed, for the retry decision.
  struct Failure {
    bool not_executed = false;  // Redis rejected the commands unrun (LOADING)
    bool timed_out = false;
  };

  RedisStore(RedisUrl url, RedisStoreOptions options) : url_(std::move(url)), options_(options) {}

  // Runs `cmds` pipelined, reconnecting/retrying per the policy above; one reply per command.
  StatusOr<std::vector<Reply>> Run(const std::vector<Args>& cmds, Retry retry);
  // The one write path of attempts and events (PutAttempt, PutAttempts, AppendEvent): checks,
  // then HSETNX per attempt and EVAL per event in one pipeline. Attempts are not copied.
  StatusOr<std::vector<bool>> PutBatch(const std::string& sweep,
                                       const std::vector<const v1::Attempt*>& attempts,
                                       const std::vector<std::string>& events);
  // One try on the current connection. I/O failures drop the connection.
  Status Pipeline(const std::vector<Args>& cmds, std::vector<Reply>* replies, Failure* failure);
  Status Connect();
  void Disconnect();
  // A reply's string ("" for a reply without one).
  static std::string Text(const redisReply* r);
  // Runs a cursor command (SCAN, HSCAN: `command(cursor)`) from cursor 0 to the end, giving each
  // reply's item array to `items`. A reconnect mid-scan starts over at cursor 0 (a cursor belongs
  // to the server that issued it) after calling `on_restart` (at most 3 times, then
  // kUnavailable). Errors: Run's, kInternal for a malformed reply, or items' first error; their
  // messages name `what` ("HSCAN <key>"). Defined with the scans in redis_store_scan.cc.
  Status ScanCursor(const std::string& what,
                    const std::function<Args(const std::string& cursor)>& command,
                    const std::function<Status(const redisReply* items)>& items,
                    const std::function<void()>& on_restart);
  // HSCAN of a whole hash: (field, value) pairs, each field once. A reconnect mid-scan starts
  // over and forgets what was read (a record may have changed).
  StatusOr<std::vector<std::pair<std::string, std::string>>> ScanHash(const std::string& key);
  // HSCAN of a whole hash, each field given to `fn` once as it arrives (HSCAN's repeats are
  // skipped by field name). A reconnect mid-scan starts the cursor over; then, with
  // `on_restart` set, it is called and every field is given again (a record may have changed);
  // without it the fields already given are skipped (hashes whose fields never change once
  // written: the attempts). Errors: the scan's, or fn's first (the scan stops there).
  Status ScanFields(
      const std::string& key,
      const std::function<Status(const std::string& field, const std::string& value)>& fn,
      const std::function<void()>& on_restart = nullptr);
  // "redis HOST:PORT: <what>" with `code`.
  Status Error(StatusCode code, const std::string& what) const;

  RedisUrl url_;
  RedisStoreOptions options_;
  redisContext* ctx_ = nullptr;  // owned; null when disconnected
  uint64_t connections_made_ = 0;
};

}  // namespace fleetsweep
