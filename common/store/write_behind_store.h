// WriteBehindStore: a ResultStore whose writes return at once and are made durable by a writer
// thread, in order and in groups, so that the coordinator's serving thread never waits on the
// store's fsync (issue 16: a result is acknowledged only once durable, but leases are granted
// and messages handled while the previous results are being written).
//
// Writes (PutConfigs, PutAttempt, PutAttempts, AppendEvent) are checked at once (the checks every
// backend applies, store_checks.h: a bad argument is kInvalidArgument and nothing is queued),
// copied into a queue and given a ticket: accepted() is the ticket of the last accepted write. The
// writer thread takes everything queued (a group) and writes it as at most two calls to the inner
// store: the attempts and events of the whole group first (one PutAttempts: one Redis pipeline,
// one AOF fsync), then its configuration records (one PutConfigs, the last record per key). A
// record is derived from attempts, so no record becomes durable before the attempts written
// before it. durable() is the ticket of the last write the inner store confirmed; notify_fd()
// becomes readable when it moves (the caller clears it with ClearNotification()).
//
// Failures: a group that fails (kUnavailable: Redis gone, a full disk) is retried from where it
// failed (writes are idempotent: attempts by id, records by key; events may repeat, as for any
// retried PutAttempts), with a back-off from 20 ms to 1 s, until it succeeds or the store is
// closed. While a group fails, new writes are refused with its error (nothing queued), so the
// caller sees the store refusing writes as before (the scheduler stops granting leases and probes).
// Every write reports success optimistically: PutAttempt(s) say "newly stored" for every attempt.
//
// Reads (GetSpec, ListSweeps, LoadConfigs, LoadAttempts, ForEachAttempt, CountAttempts,
// ReadEvents), PutSpec and Flush first wait until everything accepted is durable (Drain), so a
// reader sees its own writes; when the store keeps failing they return its error after
// `drain_timeout_seconds`. ForEachAttempt holds the inner store for the whole visit (the writer
// waits).
//
// Ownership: borrows `inner` (must outlive this object); owns the writer thread. The destructor
// drains (at most `drain_timeout_seconds`, and not at all while the store refuses writes; what is
// still queued then is dropped with a warning on stderr: it was never acknowledged, so its
// workers still hold those results) and joins. Thread-safety: every method may be called from any
// thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/store/store.h"

namespace fleetsweep {

struct WriteBehindOptions {
  double drain_timeout_seconds = 30;
  double retry_min_seconds = 0.02;
  double retry_max_seconds = 1.0;
};

class WriteBehindStore : public ResultStore {
 public:
  explicit WriteBehindStore(ResultStore* inner, WriteBehindOptions options = {});
  ~WriteBehindStore() override;
  WriteBehindStore(const WriteBehindStore&) = delete;
  WriteBehindStore& operator=(const WriteBehindStore&) = delete;

  Status PutSpec(const std::string& sweep, const std::string& spec_yaml) override;
  StatusOr<std::optional<std::string>> GetSpec(const std::string& sweep) override;
  StatusOr<std::vector<std::string>> ListSweeps() override;
  Status PutConfigs(const std::string& sweep,
                    const std::vector<v1::ConfigRecord>& configs) override;
  StatusOr<std::vector<v1::ConfigRecord>> LoadConfigs(const std::string& sweep) override;
  StatusOr<bool> PutAttempt(const std::string& sweep, const v1::Attempt& attempt) override;
  StatusOr<std::vector<bool>> PutAttempts(const std::string& sweep,
                                          const std::vector<v1::Attempt>& attempts,
                                          const std::vector<std::string>& events) override;
  // Moves the attempts into the queue instead of copying them.
  StatusOr<std::vector<bool>> PutAttemptsTaking(const std::string& sweep,
                                                std::vector<v1::Attempt>&& attempts,
                                                const std::vector<std::string>& events) override;
  StatusOr<std::vector<v1::Attempt>> LoadAttempts(const std::string& sweep) override;
  Status ForEachAttempt(const std::string& sweep,
                        const std::function<Status(const v1::Attempt&)>& visit) override;
  StatusOr<int64_t> CountAttempts(const std::string& sweep) override;
  Status AppendEvent(const std::string& sweep, const std::string& event_json) override;
  StatusOr<std::vector<std::string>> ReadEvents(const std::string& sweep, int64_t from,
                                                int64_t max) override;
  // Drains, then the inner store's Flush.
  Status Flush() override;
  std::string Describe() const override { return inner_->Describe(); }

  // Tickets: every accepted write gets the next one (from 1); 0 means none.
  uint64_t accepted() const;
  uint64_t durable() const;
  // Readable (an eventfd) when durable() has moved since the last ClearNotification().
  int notify_fd() const { return event_fd_; }
  void ClearNotification();
  // Waits until durable() == accepted() (Ok), or until `timeout_seconds` pass while the writer
  // keeps failing (its error). A negative timeout uses options.drain_timeout_seconds.
  Status Drain(double timeout_seconds = -1);
  // Inner-store calls made by the writer (for tests and the bench: the group commit's effect).
  int64_t inner_writes() const;

 private:
  struct Op {
    uint64_t ticket = 0;
    std::string sweep;
    std::vector<v1::Attempt> attempts;
    std::vector<std::string> events;
    std::vector<v1::ConfigRecord> configs;
  };
  // A read (or PutSpec/Flush) of the inner store: after Drain, under the inner store's lock;
  // Drain's error instead when it fails.
  template <typename F>
  auto Read(F&& f) -> decltype(f()) {
    FS_RETURN_IF_ERROR(Drain());
    std::lock_guard<std::mutex> lock(inner_mu_);
    return f();
  }
  // Queues `op` (its ticket assigned here) unless the writer is failing: then its error.
  Status Accept(Op op);
  // PutAttempts and PutAttemptsTaking: checks, then queues the attempts and events as one op.
  StatusOr<std::vector<bool>> QueueAttempts(const std::string& sweep,
                                            std::vector<v1::Attempt> attempts,
                                            const std::vector<std::string>& events);
  // One op holding a group's writes in order (moved out of `group`): every attempt and event,
  // the last record per key (in the order keys first appear), the last op's ticket.
  static Op Merge(std::vector<Op> group);
  void WriterLoop();
  // Writes one group of one sweep (Merge's op): attempts and events, then records. Sets
  // *attempts_done so that a retry after a failed record write does not write the attempts again.
  Status WriteGroup(const Op& group, bool* attempts_done);

  ResultStore* inner_;
  const WriteBehindOptions options_;
  int event_fd_ = -1;

  mutable std::mutex mu_;
  std::condition_variable wake_writer_;  // queue grew, or stopping
  std::condition_variable drained_;      // durable_ moved, or the writer's state changed
  std::deque<Op> queue_;                 // GUARDED_BY(mu_)
  uint64_t accepted_ = 0;                // GUARDED_BY(mu_)
  uint64_t durable_ = 0;                 // GUARDED_BY(mu_)
  Status failing_;                       // GUARDED_BY(mu_): Ok unless the current group fails
  bool stopping_ = false;                // GUARDED_BY(mu_)
  int64_t inner_writes_ = 0;             // GUARDED_BY(mu_)
  std::mutex inner_mu_;                  // the inner store: one caller at a time
  std::thread writer_;
};

}  // namespace fleetsweep
