// StoreWriter: writes finished attempts to the result store (cluster mode) on its own thread, so
// the agent's loop never blocks on Redis. The attempts queued while a write was in flight go in
// one batch (PutAttempts: one Redis round trip), each written idempotently and announced on the
// sweep's event log, then handed back through `stored` (whose notifier wakes the
// loop), which sends the result to the coordinator. A failed write is logged and the result is
// still handed back: the coordinator stores what it receives.
//
// Ownership: store and stored queue are not owned and must outlive the writer; the destructor
// finishes the writes already queued, then joins.
// Thread-safety: Enqueue and pending() from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "common/store/store.h"
#include "worker/agent/slot.h"

namespace fleetsweep {

class StoreWriter {
 public:
  StoreWriter(ResultStore* store, CompletionQueue* stored);
  ~StoreWriter();
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  void Enqueue(SlotDone done);
  size_t pending() const;  // queued or being written

 private:
  static constexpr size_t kMaxBatch = 256;
  void Loop();
  // Writes `batch`'s attempts; each attempt is moved into the store's argument and back (no copy):
  // on return `batch` holds what it held.
  void WriteBatch(std::vector<SlotDone>& batch);

  ResultStore* store_;
  CompletionQueue* stored_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<SlotDone> queue_;  // GUARDED_BY(mu_)
  size_t writing_ = 0;          // GUARDED_BY(mu_)
  bool stopping_ = false;       // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace fleetsweep
