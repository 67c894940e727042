// LiveAudits: what a running sweep publishes to its Prometheus metrics, from the serving thread
// (docs/metrics.md). On every Tick:
//   - the scheduler's progress (configuration states, workers, slots) and the counters that grew
//     since the last tick (leases expired, retries, duplicate and refused results);
// every `slow_every_s` (2 s; it costs O(configurations)):
//   - the best configuration so far (median and bootstrap CI) and the top-10 table;
// every `audit_every_s` (5 s), aggregating what the store holds so far:
//   - node effects and audit verdicts (fingerprint injection, inert parameters); skipped while the
//     store holds more than `max_live_attempts` attempts (they are computed at the end anyway).
//
// Errors: none; a store read that fails skips that round of audits (the next round retries).
// Ownership: borrows the spec, the store and the metrics (all must outlive it). Not thread-safe:
// call Tick from one thread.
#pragma once

#include <cstdint>

#include "common/space/spec.h"
#include "common/store/store.h"
#include "coordinator/scheduler.h"

namespace fleetsweep {

class CoordinatorMetrics;  // common/metrics/coordinator_metrics.h

struct LiveAuditOptions {
  double slow_every_s = 2.0;
  double audit_every_s = 5.0;
  int64_t max_live_attempts = 200000;
  int resamples = 500;  // a cheaper bootstrap than the final results' 2000
  uint64_t seed = 0;
};

class LiveAudits {
 public:
  LiveAudits(const SweepSpec& spec, ResultStore* store, CoordinatorMetrics* metrics,
             LiveAuditOptions options);

  // Publishes what is due at `now` (seconds, any monotonic origin). The first call publishes all.
  void Tick(const Scheduler& scheduler, double now);

  // How many audit rounds have aggregated the store (for tests).
  int audit_rounds() const { return audit_rounds_; }

 private:
  void PublishProgress(const Scheduler& scheduler);
  void PublishBest(const Scheduler& scheduler);
  void PublishAudits();

  const SweepSpec& spec_;
  ResultStore* store_;
  CoordinatorMetrics* metrics_;
  LiveAuditOptions options_;
  Progress last_;
  bool first_ = true;
  double last_slow_ = 0, last_audit_ = 0;
  int audit_rounds_ = 0;
};

}  // namespace fleetsweep
