// Scheduler: the coordinator's state machine. Owns the configurations of one sweep, grants leases
// to worker slots, expires the leases of silent workers, counts results exactly once, and decides
// when a configuration is done (enough repetitions, CI tight enough) or infeasible (failures).
//
// No sockets and no clock inside: the server passes `now` (seconds, monotonic) into every call, so
// tests drive time directly. Every stored record goes through the ResultStore given to the
// constructor (not owned; must outlive the scheduler).
//
// Counting rule: an attempt is counted once per attempt_id, whatever path it arrives by (a late
// result from an expired lease, a result re-sent after its acknowledgement was lost, an attempt
// that a worker already wrote to Redis). Counted ids are rebuilt from the store on Init(), so a
// restarted coordinator neither loses nor re-runs finished work.
//
// Who may report (docs/security.md): a result is taken only for a lease this scheduler granted,
// from the worker id AND peer identity (the CurveZMQ public key, "" without Curve) it was granted
// to, with attempt_id == lease_id and the lease's configuration. Lease ids carry 128 random bits,
// so they cannot be guessed. A result for an expired lease still counts once when its holder sends
// it. Anything else (unknown or foreign lease, another worker's, a NaN/Inf sample) is refused:
// not stored, not counted, counted in Progress::refused and never as a duplicate. A restarted
// coordinator knows none of the previous leases: their results are refused and re-run (their
// attempts, if the worker already stored them, were replayed by Init()).
//
// Parts (docs/design.md "The scheduler's parts"): the Scheduler is the facade the server and the
// sweep runner call; it wires the ConfigTable (config_table.h), the repetition policy
// (repetition.h), the search strategy (search.h), the Dispatcher (dispatch.h), the LeaseTable
// (lease_table.h) and the WorkerRegistry (worker_registry.h), and owns counting, the store writes
// and the store's health (scheduler_store.cc).
//
// Thread-safety: not thread-safe; one thread (the server loop) calls everything.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/space/space_index.h"
#include "common/space/spec.h"
#include "common/space/value.h"
#include "common/store/store.h"
#include "coordinator/scheduler/config_table.h"
#include "coordinator/scheduler/dispatch.h"
#include "coordinator/scheduler/lease_table.h"
#include "coordinator/scheduler/repetition.h"
#include "coordinator/scheduler/worker_registry.h"
#include "coordinator/search/search.h"
#include "fleetsweep/v1/data.pb.h"
#include "fleetsweep/v1/wire.pb.h"

namespace fleetsweep {

struct SchedulerOptions {
  double worker_timeout_seconds = 10;  // a worker silent this long loses its leases
  double lease_grace_seconds = 30;     // lease deadline = executor timeout + this
  double heartbeat_seconds = 1;
  int reference_every = 25;  // re-measure the reference at most this many leases apart per node
                             // (fewer in small sweeps: see dispatch.cc)
  uint64_t seed = 1;         // bootstrap seed for the adaptive-repetition CI, assignment draws
  // Adaptive stage 2: a configuration whose CI overlaps the leader's after repetitions.min
  // executions (and the leader itself) runs to repetitions.max (repetition.cc).
  bool extend_contenders = true;
  std::string epoch;  // unique per coordinator start; part of lease ids
  // A store that refuses writes: no leases are granted and no lease deadline expires while it
  // does; a probe write is retried with back-off from store_probe_min to store_probe_max seconds.
  double store_probe_min_seconds = 0.5;
  double store_probe_max_seconds = 10;
  // Observers (optional), called on the scheduler's thread.
  std::function<void(const v1::Attempt&)> on_attempt_counted;
  std::function<void(const v1::Lease&)> on_lease_granted;
};

struct Progress {
  int64_t total = 0, pending = 0, leased = 0, done = 0, infeasible = 0;
  int64_t attempts_ok = 0, attempts_failed = 0, leases_expired = 0, retries = 0, duplicates = 0;
  int64_t refused = 0;  // results not from the lease holder, for no lease, or with NaN/Inf
  double store_failing_seconds = 0;  // > 0 while the store refuses writes
  int64_t samples = 0;
  int64_t workers = 0, slots = 0, busy = 0;
  int64_t eliminated = 0;  // racing
};

class Scheduler {
 public:
  Scheduler(const SweepSpec& spec, SchedulerOptions options, ResultStore* store);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Indexes the space (SpaceIndex: nothing is stored per configuration until it is touched),
  // stores the spec, and replays stored records and attempts (resume).
  // Errors: the store's (kUnavailable), kAlreadyExists when the store holds another spec text for
  // the same sweep name.
  Status Init();

  // A worker said hello (or hello again after a coordinator restart). Returns the ack, which
  // carries the spec (SpecMessage) so that leases need only name its hash.
  // `identity` is the peer's authenticated identity (its CurveZMQ public key; "" without Curve);
  // leases granted to the worker are bound to it.
  v1::HelloAck OnHello(const std::string& worker_id, const v1::Hello& hello, double now,
                       const std::string& identity = "");
  bool KnowsWorker(const std::string& worker_id) const { return workers_.Knows(worker_id); }
  // Grants up to `free_slots` leases. Empty when nothing is ready (see NoWorkReply). Assignment
  // (Dispatcher, dispatch.h) is randomised and balanced: among the next ready configurations, those
  // run least on this worker's node first, then those matching one of the request's open session
  // keys (session affinity), then the least-run overall, then a seeded random draw. The
  // reference configuration is interleaved through the sweep on every node.
  std::vector<v1::Lease> OnWorkRequest(const std::string& worker_id, const v1::WorkRequest& request,
                                       double now);
  std::vector<v1::Lease> OnWorkRequest(const std::string& worker_id, int free_slots, double now);
  v1::NoWork NoWorkReply() const;
  // The sweep's spec text and hash, as sent in HelloAck and in answer to a SpecRequest.
  v1::SpecText SpecMessage() const;
  // Marks the worker alive and renews the deadlines of the leases it names as waiting
  // (prefetched, not started), up to (kMaxPrefetchPerSlot + 1) lease lengths after the grant;
  // leases held by another worker are ignored.
  void OnHeartbeat(const std::string& worker_id, const v1::Heartbeat& hb, double now);
  // A result as it arrived, for StoreAhead.
  struct ResultRef {
    const std::string* worker_id;
    const std::string* identity;
    const v1::Result* result;
  };
  // Group commit: makes the attempts of results that arrived together durable in ONE store write
  // (PutAttempts) before OnResult counts them one by one (it then skips its own write for them).
  // Only results OnResult would accept and that are not counted yet are written. A failed write
  // is noted (store back-off) and left to OnResult, which then writes each on its own.
  void StoreAhead(const std::vector<ResultRef>& batch);
  // Configuration-record writes between BeginBatch and EndBatch are collected and written as one
  // PutConfigs at EndBatch (a record is derived state: attempts are stored first, and a resumed
  // sweep recomputes states from them). EndBatch returns the write's status (also noted for the
  // store back-off and logged).
  void BeginBatch();
  Status EndBatch();
  // Counts the result (once) when it comes from the holder of its lease (see "Who may report").
  // Returns whether it was counted now (false for a duplicate or a refused result); errors are
  // the store's, in which case nothing was counted and the worker should send it again.
  StatusOr<bool> OnResult(const std::string& worker_id, const v1::Result& result, double now,
                          const std::string& identity = "");
  // Expires silent workers and overdue leases, re-queueing their configurations.
  void Tick(double now);
  void OnWorkerGone(const std::string& worker_id, double now);

  bool Finished() const;
  // Store write health: how long writes have been failing (0 when the last write succeeded) and
  // the last error. The caller decides when to give up (docs/store.md).
  double StoreFailingSeconds(double now) const;
  const Status& StoreError() const { return store_error_; }
  // Attempts counted (stored and counted once), for cross-checks against what the store holds.
  int64_t CountedAttempts() const { return leases_.counted(); }
  // The lease table: its grants and which attempts were counted (LeaseTable::Counted).
  const LeaseTable& leases() const { return leases_; }
  // Moves the lease table out, for Finish's check of the counted attempts: afterwards the
  // scheduler may only be destroyed.
  LeaseTable TakeLeases() { return std::move(leases_); }
  // Leases granted and not yet returned or expired.
  int64_t OutstandingLeases() const { return leases_.outstanding(); }
  Progress GetProgress() const;
  // The configurations (held and untouched: config_table.h).
  const ConfigTable& configs() const { return configs_; }
  const SweepSpec& spec() const { return spec_; }
  std::vector<std::string> WorkerIds() const;
  // Best configuration so far by primary-metric median (done configs first); -1 when none.
  int BestIndex() const;

 private:
  // The space the table is indexed into (a search strategy's sample of it for random / lhs).
  StatusOr<std::unique_ptr<SpaceIndex>> BuildSpace() const;
  // Where each stored record's and attempted configuration is (`attempted`: the config keys of
  // the stored non-reference attempts): its index, from the record's seq when that checks out,
  // else from one walk of the space. Keys not in the space are absent.
  std::unordered_map<std::string, int> Locate(
      const std::vector<v1::ConfigRecord>& stored,
      const std::unordered_set<std::string>& attempted) const;
  void Reevaluate(int index);
  // Writes the records the ConfigTable reports changed (PersistConfig each).
  void PersistChanged();
  v1::Lease MakeLease(int index, const std::string& worker_id, bool reference, double now);
  // Removes an outstanding lease (from the lease table and its holder) and re-queues its
  // configuration; no-op when the lease is not outstanding.
  void ExpireLease(const std::string& lease_id, const char* why);
  // scheduler_store.cc
  Status PersistConfig(int index);
  void CountAttempt(const v1::Attempt& attempt);
  // Records the outcome of a store write (item 7 of issue 15).
  void NoteStoreWrite(const Status& s);
  void ProbeStore(double now);
  // Whether `key` is the config_key of the lease's configuration (`config`: LeaseGrant::config).
  bool IsLeaseKey(int config, const std::string& key) const;
  // nullptr when `result` may be counted; else why it is refused.
  const char* RefuseReason(const std::string& worker_id, const std::string& identity,
                           const v1::Result& result) const;

  const SweepSpec& spec_;
  SchedulerOptions options_;
  ResultStore* store_;
  std::string spec_hash_;
  std::unique_ptr<SpaceIndex> space_;  // set by Init
  ConfigTable configs_;
  AdaptiveRepetitions reps_;
  std::unique_ptr<SearchStrategy> search_;  // chosen once from spec.search.strategy
  Dispatcher dispatcher_;
  LeaseTable leases_;
  WorkerRegistry workers_;
  std::set<std::string> stored_ahead_;  // attempt ids written by StoreAhead, not counted yet
  Progress counters_;
  double now_ = 0;  // the latest `now` passed in
  bool batching_ = false;
  std::set<int> dirty_configs_;  // PersistConfig calls deferred to EndBatch
  bool store_failing_ = false;
  double store_failing_since_ = -1;  // < 0: not known yet (a failure inside Init)
  double next_store_probe_ = 0;
  double store_probe_backoff_ = 0;
  Status store_error_;
};

}  // namespace fleetsweep
