// LiveAudits: what a running sweep publishes to its Prometheus metrics (docs/metrics.md), computed
// on its own thread so that the serving thread only hands over what changed (issue 16).
//
// The serving thread calls Hand on every tick with a LiveBatch: the scheduler's progress, the
// attempts counted since the last tick (moved, from SchedulerOptions::on_attempt_counted) and the
// current records of their configurations. The audit thread, for every batch:
//   - publishes the progress (configuration states, workers, slots) and the counters that grew
//     since the last batch (leases expired, retries, duplicate and refused results);
//   - adds the attempts to an IncrementalAggregate (incremental_aggregate.h), which holds an
//     entry only for configurations with an attempt or a record handed over (Track): a
//     configuration that never ran costs nothing, however large the space;
// and every `aggregate_every_s` (2 s of the batches' clock; the first batch always), or every
// `duty_factor` (5) times the last round's cost when that is longer (so that the audit thread
// stays below about 20% of a core however large the sweep), takes its Result, whose
// per-configuration summaries are recomputed only for configurations with new attempts, and
// publishes from it:
//   - the best configuration (rank 1 of the aggregate: node-corrected median and hierarchical
//     bootstrap CI) and the top-10 table;
//   - node effects and audit verdicts (fingerprint injection, inert parameters).
// Past `max_live_attempts` counted attempts the aggregate is dropped and only the progress is
// published from then on; everything is computed at the end anyway from the store. The audit
// thread keeps no copy of the attempts (a batch's are dropped once added): per attempt the
// aggregate holds its finite samples and a 32-byte ExecutionLog record (execution_log.h), per
// configuration an entry of ids (incremental_aggregate.h). Measured (bench/live_audits_memory_
// bench.cc, docs/performance.md, 2026-12-08): 255 bytes per attempt when configurations repeat
// (200,000 attempts over 10,000 configurations, 10 samples each; 296 before the entry held ids),
// 962 bytes when every attempt is a new configuration (a 1,000,000-configuration grid with one
// execution each; 1,794 before), plus, during a round, a copy of every configuration's result
// (~0.8 KB each). 200,000 is kept: in the one-execution-per-configuration shape that is ~185 MB
// held and ~350 MB during a round, already above what the 300 MB target allows.
//
// Errors: none. Ownership: borrows the spec and the metrics (both must outlive it); owns the
// thread, which the destructor stops and joins (a round in progress stops at its next check:
// between configurations' summaries, parameters' tests and the aggregate's steps; it publishes
// nothing; batches not yet taken are dropped). Hand and the accessors may be called from any one
// thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/space/spec.h"
#include "coordinator/aggregate/aggregator.h"
#include "coordinator/scheduler/scheduler.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

class CoordinatorMetrics;  // common/metrics/coordinator_metrics.h
class IncrementalAggregate;

struct LiveAuditOptions {
  double aggregate_every_s = 2.0;
  double duty_factor = 5.0;  // a round waits at least this many times the last round's cost
  int64_t max_live_attempts = 200000;  // see the header comment for what this holds
  int resamples = 500;                 // a cheaper bootstrap than the final results' 2000
  uint64_t seed = 0;
};

// What the serving thread hands over on a tick.
struct LiveBatch {
  double now = 0;  // seconds, any monotonic origin
  Progress progress;
  std::vector<v1::Attempt> attempts;      // counted since the last batch, in counting order
  std::vector<v1::ConfigRecord> records;  // the current records of their configurations
};

class LiveAudits {
 public:
  // `records`: the records of the configurations to start with (at least those of `attempts`;
  // every other configuration is added when a batch first hands its record); `attempts`: those
  // counted before serving (a resumed sweep's); nullopt when they are not known (too many, or the
  // store could not be read): then only the progress is published. With `metrics` null no thread
  // is started and Hand drops everything.
  LiveAudits(const SweepSpec& spec, CoordinatorMetrics* metrics, LiveAuditOptions options,
             const std::vector<v1::ConfigRecord>& records,
             std::optional<std::vector<v1::Attempt>> attempts);
  ~LiveAudits();
  LiveAudits(const LiveAudits&) = delete;
  LiveAudits& operator=(const LiveAudits&) = delete;

  // Queues the batch for the audit thread and returns (a lock and a move).
  void Hand(LiveBatch batch);
  // Waits until every batch handed so far is published (for tests and the end of serving).
  void Drain();

  // How many aggregate rounds have been published.
  int aggregate_rounds() const;
  // False once the aggregate is dropped (or never started): batches need no attempts then.
  bool aggregating() const { return aggregating_.load(); }

 private:
  void Run();
  void Process(LiveBatch batch);
  void PublishProgress(const Progress& p);
  void PublishAggregate();

  const SweepSpec& spec_;
  CoordinatorMetrics* metrics_;
  LiveAuditOptions options_;
  // Audit thread only:
  std::unique_ptr<IncrementalAggregate> aggregate_;  // null past max_live_attempts
  int64_t counted_ = 0;                              // attempts added to the aggregate
  Progress last_;
  bool first_ = true;
  double last_round_ = 0;
  double last_cost_ = 0;  // wall seconds of the last round
  // Shared, under mu_:
  mutable std::mutex mu_;
  std::condition_variable wake_, idle_;
  std::deque<LiveBatch> queue_;
  int64_t handed_ = 0, processed_ = 0;
  int rounds_ = 0;
  bool stop_ = false;
  std::atomic<bool> aggregating_{false};
  std::atomic<bool> cancel_{false};  // set by the destructor: the round in progress stops early
  std::thread thread_;
};

}  // namespace fleetsweep
