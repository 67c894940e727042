// StoreWatch: is the result store still fit to carry a running sweep? Checked on every tick of
// the serving thread (docs/store.md, "Faults"):
//   - writes refused for longer than `give_up_seconds` (Scheduler::StoreFailingSeconds): the
//     sweep stops with ExitCode::kStoreRefusedWrites (7); the status is kUnavailable naming the
//     store, how long and the last error;
//   - every `intact_every_s` (2 s) CheckStoreIntact (store_guard.h): data the coordinator had
//     stored vanished: the sweep stops with ExitCode::kStoreLostData (6); the status is kDataLoss.
// A store that cannot be reached right now is neither: the scheduler pauses and probes.
//
// Ownership: borrows the spec and the store. Not thread-safe (one serving thread).
#pragma once

#include "common/space/spec.h"
#include "common/status.h"
#include "common/store/store.h"
#include "coordinator/app/exit_codes.h"
#include "coordinator/scheduler/scheduler.h"

namespace fleetsweep {

class CoordinatorMetrics;  // common/metrics/coordinator_metrics.h

class StoreWatch {
 public:
  StoreWatch(const SweepSpec& spec, ResultStore* store, double give_up_seconds,
             double intact_every_s = 2.0);

  // Ok while the sweep may go on; else the fault (kUnavailable or kDataLoss) that stops it.
  // `metrics` (may be null) gets fleetsweep_coordinator_store_writable.
  Status Check(const Scheduler& scheduler, double now, CoordinatorMetrics* metrics);

  // The exit code of a fault Check returned: kStoreLostData for kDataLoss, else
  // kStoreRefusedWrites.
  static ExitCode CodeOf(const Status& fault);

 private:
  const SweepSpec& spec_;
  ResultStore* store_;
  double give_up_seconds_, intact_every_s_;
  double last_intact_ = 0;
  bool first_ = true;
};

}  // namespace fleetsweep
