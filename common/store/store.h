// ResultStore: where a sweep's spec, configurations, attempts and events live.
//
// Two implementations share this interface and ONE test suite (store_test_suite.h):
//   * RedisStore (redis_store.h): the source of truth in cluster mode.
//   * FileStore (file_store.h): an append-only log in a directory, the default on one machine.
//
// Records are protobuf messages (proto/fleetsweep/v1/data.proto). Every method returns a Status;
// none throws. A store that loses its backend (Redis gone) returns kUnavailable and keeps no
// partial state: callers may retry the same call, and because attempts are keyed by
// (config_key, attempt_id) a retried PutAttempt never stores a duplicate.
//
// Thread-safety: implementations are NOT thread-safe; give each thread its own instance (they are
// cheap) or guard one with a mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

class ResultStore {
 public:
  virtual ~ResultStore() = default;

  // Stores the spec text of `sweep`. Overwrites an existing one only if identical text; a
  // different text for an existing sweep is kAlreadyExists (a resumed sweep must keep its spec).
  virtual Status PutSpec(const std::string& sweep, const std::string& spec_yaml) = 0;
  // Returns std::nullopt when the sweep has no spec yet.
  virtual StatusOr<std::optional<std::string>> GetSpec(const std::string& sweep) = 0;
  // The names of the sweeps that have a spec in this store, sorted (`fleetsweep list`).
  virtual StatusOr<std::vector<std::string>> ListSweeps() = 0;

  // Inserts or replaces configuration records (by config_key). Batched.
  virtual Status PutConfigs(const std::string& sweep,
                            const std::vector<v1::ConfigRecord>& configs) = 0;
  virtual StatusOr<std::vector<v1::ConfigRecord>> LoadConfigs(const std::string& sweep) = 0;

  // Stores an attempt idempotently under (attempt.config_key, attempt.attempt_id).
  // Returns true if newly stored, false if that key already existed (nothing changed).
  virtual StatusOr<bool> PutAttempt(const std::string& sweep, const v1::Attempt& attempt) = 0;
  // Stores attempts (each as PutAttempt: idempotent) and then appends `events`, as ONE batch:
  // RedisStore sends it as one pipeline (one round trip, one AOF write under appendfsync
  // always); the default calls PutAttempt and AppendEvent in turn. Returns, per attempt, whether
  // it was newly stored. Every attempt is checked first: one that PutAttempt would refuse fails
  // the whole batch (kInvalidArgument) before anything is written. On another error the caller
  // cannot tell what was written: retrying the batch is safe for attempts (events may repeat).
  virtual StatusOr<std::vector<bool>> PutAttempts(const std::string& sweep,
                                                  const std::vector<v1::Attempt>& attempts,
                                                  const std::vector<std::string>& events);
  // As PutAttempts, for a caller that no longer needs `attempts`: a store that keeps them
  // (WriteBehindStore queues them) moves them instead of copying; afterwards `attempts` is valid
  // but unspecified. The default calls PutAttempts.
  virtual StatusOr<std::vector<bool>> PutAttemptsTaking(const std::string& sweep,
                                                        std::vector<v1::Attempt>&& attempts,
                                                        const std::vector<std::string>& events);
  // All attempts of the sweep, in no particular order.
  virtual StatusOr<std::vector<v1::Attempt>> LoadAttempts(const std::string& sweep) = 0;
  // Calls `visit` with each attempt of the sweep (the set LoadAttempts returns, in no particular
  // order) without holding them all: FileStore reads them from its log one by one, so a sweep of
  // a million attempts is aggregated in the memory of one. The default visits LoadAttempts's
  // result. `visit` must not call the store. Errors: the store's read error, or the first error
  // `visit` returns (the visit stops there).
  virtual Status ForEachAttempt(const std::string& sweep,
                                const std::function<Status(const v1::Attempt&)>& visit);
  // Number of stored attempts (cheap).
  virtual StatusOr<int64_t> CountAttempts(const std::string& sweep) = 0;

  // Appends one event (a JSON line) to the sweep's event log.
  virtual Status AppendEvent(const std::string& sweep, const std::string& event_json) = 0;
  // Events from index `from` on (0-based), at most `max`.
  virtual StatusOr<std::vector<std::string>> ReadEvents(const std::string& sweep, int64_t from,
                                                        int64_t max) = 0;

  // Makes everything written so far durable (fsync for the file store; no-op for Redis, whose
  // durability is its AOF setting).
  virtual Status Flush() = 0;

  // "redis://..." or "file:DIR", for logs; never contains a password.
  virtual std::string Describe() const = 0;
};

// Opens a store from a URL: "redis://[user:password@]host:port[/db]" or "file:DIR" (or a bare
// directory path). Errors: kInvalidArgument for a malformed URL, kUnavailable when the backend
// cannot be reached.
StatusOr<std::unique_ptr<ResultStore>> OpenStore(const std::string& url);

}  // namespace fleetsweep
