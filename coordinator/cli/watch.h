// Watch: a terminal view of a running (or finished) sweep read from its store, normally Redis
// (`fleetsweep watch --redis URL --sweep NAME`). Read-only: it never writes to the store.
//
// Each snapshot reads the configuration states (LoadConfigs), the attempts (LoadAttempts) and the
// events appended since the previous snapshot (ReadEvents, polled: the stream is read by index,
// so nothing is missed between snapshots). It prints progress (done/total, infeasible, leased,
// pending), the executions (common/store/execution_count.h: counted as `fleetsweep run` counts
// them, failed ones apart), the current best configurations by median of the primary metric over
// the ok attempts so far (a running view, not the final robust ranking), and the recent events.
//
// Thread-safety: a Watcher is used by one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <ostream>
#include <string>

#include "common/status.h"
#include "common/store/execution_count.h"
#include "common/store/store.h"

namespace fleetsweep {

struct WatchProgress {
  int64_t total = 0, done = 0, infeasible = 0, leased = 0, pending = 0;
  ExecutionCount executions;  // every execution in the store, failed ones apart
  int64_t events = 0;
  bool finished() const { return total > 0 && done + infeasible == total; }
};

class Watcher {
 public:
  // `store` is borrowed and must outlive the Watcher.
  Watcher(ResultStore* store, std::string sweep);

  // Reads the store and writes one snapshot to `out`. kNotFound when the store has neither a spec
  // nor configurations for the sweep; store errors are passed through.
  Status Snapshot(std::ostream& out);
  const WatchProgress& progress() const { return progress_; }

 private:
  ResultStore* store_;
  std::string sweep_;
  int64_t event_cursor_ = 0;
  std::deque<std::string> recent_;  // formatted, newest last
  WatchProgress progress_;
};

// The `fleetsweep watch` loop: one snapshot (once) or a snapshot every `interval_seconds`,
// redrawing the terminal, until the sweep finishes or `stop` becomes true. Returns the exit code
// (0, or 2 with the error on `err`).
int RunWatch(const std::string& store_url, const std::string& sweep, bool once,
             double interval_seconds, const std::atomic<bool>& stop, std::ostream& out,
             std::ostream& err);

}  // namespace fleetsweep
