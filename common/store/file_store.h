// FileStore: the embedded ResultStore for one machine: an append-only log in a directory.
//
// Directory layout:
//   DIR/store.log   the log: kLogMagic, then framed records (record_log.h). Record payloads:
//                   [u32 sweep length][sweep name][body], body = the spec text (kSpec), a
//                   serialized v1::ConfigRecord (kConfig) or v1::Attempt (kAttempt), or the event
//                   JSON line (kEvent). A later kConfig with the same config_key replaces the
//                   earlier one.
//   DIR/LOCK        flock(LOCK_EX) held while open; contains the holder's pid.
//
// Open() replays the whole log into an in-memory index: specs and events in full, and for
// configuration records and attempts only where each body lies in the log, and for idempotence a
// 64-bit hash of each attempt key (a hash that matches is confirmed by reading that attempt back),
// about 60 bytes per attempt; LoadConfigs, LoadAttempts and ForEachAttempt
// read the bodies back from the log (issue 16: a million-attempt sweep must not hold its
// attempts in memory). A torn tail (a crash mid-append) is truncated away with a warning on
// stderr (recovery_note() says what was dropped) and is NOT an error; corruption with valid
// records after it is kDataLoss with the byte offset, and the file is left untouched. A second
// Open() of the same directory, from any process (or this one), fails with kFailedPrecondition
// naming the lock holder's pid.
//
// Durability: each Put*/AppendEvent call is one write() of all its records (so a call is never
// half-applied in memory; after a failed write the file is truncated back to where the call
// began). fdatasync happens on Flush(), on destruction, and automatically on a write once
// options.sync_every_records records or options.sync_every_ms milliseconds have accumulated since
// the last sync (checked at writes, no background thread). Written-but-unsynced records survive a
// process crash (they are in the page cache) but not a power loss.
//
// Consistency: PutAttempt is idempotent by (config_key, attempt_id): a duplicate returns false and
// writes nothing. PutSpec writes only when the sweep has no spec (identical text: OK, no write).
//
// Thread-safety: NOT thread-safe (like every ResultStore); the flock also keeps other processes
// out.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/store/record_log.h"
#include "common/store/store.h"

namespace fleetsweep {

struct FileStoreOptions {
  // Automatic fdatasync after this many records since the last sync (0: never by count).
  int sync_every_records = 256;
  // Automatic fdatasync on a write when this much time passed since the last sync (0: never by
  // time).
  int sync_every_ms = 200;
  // The hash of an attempt key (AttemptKey) in the idempotence index; null: std::hash. Tests set
  // a weak one to make keys collide (a collision costs a read, never a wrong answer).
  uint64_t (*attempt_key_hash)(std::string_view key) = nullptr;
};

class FileStore : public ResultStore {
 public:
  // Opens (creating DIR and the log if missing) and replays. Errors: kInvalidArgument (empty
  // path), kFailedPrecondition (locked by another opener), kDataLoss (mid-file corruption, bad
  // magic, undecodable record), kInternal (I/O errors, with the path and errno text).
  static StatusOr<std::unique_ptr<FileStore>> Open(const std::string& dir,
                                                   FileStoreOptions options = {});
  ~FileStore() override;  // syncs, closes, releases the lock
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  Status PutSpec(const std::string& sweep, const std::string& spec_yaml) override;
  StatusOr<std::optional<std::string>> GetSpec(const std::string& sweep) override;
  StatusOr<std::vector<std::string>> ListSweeps() override;
  Status PutConfigs(const std::string& sweep,
                    const std::vector<v1::ConfigRecord>& configs) override;
  StatusOr<std::vector<v1::ConfigRecord>> LoadConfigs(const std::string& sweep) override;
  StatusOr<bool> PutAttempt(const std::string& sweep, const v1::Attempt& attempt) override;
  StatusOr<std::vector<v1::Attempt>> LoadAttempts(const std::string& sweep) override;
  Status ForEachAttempt(const std::string& sweep,
                        const std::function<Status(const v1::Attempt&)>& visit) override;
  StatusOr<int64_t> CountAttempts(const std::string& sweep) override;
  Status AppendEvent(const std::string& sweep, const std::string& event_json) override;
  StatusOr<std::vector<std::string>> ReadEvents(const std::string& sweep, int64_t from,
                                                int64_t max) override;
  Status Flush() override;
  std::string Describe() const override { return "file:" + dir_; }

  // Empty after a clean open; otherwise what the torn-tail recovery dropped.
  const std::string& recovery_note() const { return recovery_note_; }
  // Path of the log file.
  std::string log_path() const { return dir_ + "/store.log"; }

 private:
  // Where a record's body (a serialized message) lies in the log.
  struct BodyRef {
    uint64_t offset = 0;
    uint32_t size = 0;
  };
  struct Sweep {
    std::optional<std::string> spec;
    std::map<std::string, BodyRef> configs;  // by config_key: its latest record
    // Every stored attempt by the hash of its AttemptKey: its index in `attempts`.
    std::unordered_multimap<uint64_t, uint32_t> attempt_hashes;
    std::vector<BodyRef> attempts;  // in log order
    std::vector<std::string> events;
  };

  FileStore(std::string dir, FileStoreOptions options) : dir_(std::move(dir)), options_(options) {}
  Status Lock();
  Status Replay();
  Status ApplyRecord(RecordType type, std::string_view payload, uint64_t offset);
  uint64_t HashAttemptKey(std::string_view key) const;
  // Whether `s` holds an attempt with AttemptKey `key` (hash `hash`): each attempt of that hash
  // is read back and compared. Errors: kInternal (I/O), kDataLoss (unreadable attempt).
  StatusOr<bool> HasAttempt(const Sweep& s, uint64_t hash, const std::string& key) const;
  // Writes `batch` (holding `records` records) at the end of the log; syncs per the policy.
  Status Append(const std::string& batch, int records);
  Status Sync();
  // Reads the bodies `refs` point at (sorted by offset: the log is read forward in windows) and
  // calls `fn` with each. Errors: kInternal (I/O), kDataLoss (the log is shorter than its index),
  // or fn's first error.
  Status ReadBodies(const std::vector<BodyRef>& refs,
                    const std::function<Status(std::string_view body, uint64_t offset)>& fn) const;

  std::string dir_;
  FileStoreOptions options_;
  int lock_fd_ = -1;
  int log_fd_ = -1;
  uint64_t size_ = 0;    // bytes of valid log
  bool broken_ = false;  // a failed write could not be rolled back: refuse further writes
  int unsynced_records_ = 0;
  std::chrono::steady_clock::time_point last_sync_;
  std::string recovery_note_;
  std::map<std::string, Sweep> sweeps_;
};

}  // namespace fleetsweep
