// Slot: one execution at a time on one device, on its own thread, through a Session it owns.
//
// The loop thread hands a slot jobs (Enqueue); the slot thread runs them in order, going from one
// to the next without waiting for the loop (a prefetched lease starts the moment the previous
// execution ends). For each job it picks or opens the session for the job's key (an open session is
// kept while it is reusable and its key matches, so a warm benchmark process serves consecutive
// executions), runs the execution holding the device's timing gate only for the timed part, and
// posts the finished attempt to the CompletionQueue, whose notifier wakes the loop. Cancel() drops
// the queued jobs and aborts the running execution at once (an eventfd the session polls; the
// timing gate's waiters are woken).
//
// Ownership: launcher (per job) and gates/queue are not owned; they outlive the slot. The slot
// owns its thread and its session; the destructor cancels and joins.
// Thread-safety: Enqueue/Taken/Cancel/open_key and the loop-thread view from the loop thread; the
// rest is internal.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fleetsweep/v1/wire.pb.h"
#include "worker/agent/notifier.h"
#include "worker/executors/session.h"
#include "worker/executors/timing_gate.h"

namespace fleetsweep {

struct SlotJob {
  v1::Lease lease;
  ExecutionRequest request;            // cancel/cancel_fd are set by the slot
  const Launcher* launcher = nullptr;  // null: the spec could not be used (spec_error says why)
  std::string spec_error;
};

struct SlotDone {
  int slot = 0;
  v1::Lease lease;
  v1::Attempt attempt;
};

// Finished executions, from slot threads to the loop thread. Push wakes the loop (the eventfd)
// when the queue was empty, when `urgent` (the slot has nothing left to run) or when it holds
// wake_count() entries; TakeAll clears the eventfd, then takes everything queued. A loop that
// lets entries wait (Pacing) calls Clear() so that the descriptor stops waking it.
class CompletionQueue {
 public:
  explicit CompletionQueue(size_t wake_count = 1) : wake_count_(wake_count) {}
  void Push(SlotDone done, bool urgent = true);
  std::vector<SlotDone> TakeAll();
  size_t size() const;
  void Clear() { notifier_.Clear(); }
  int fd() const { return notifier_.fd(); }

 private:
  const size_t wake_count_;
  mutable std::mutex mu_;
  std::deque<SlotDone> done_;  // GUARDED_BY(mu_)
  Notifier notifier_;
};

class Slot {
 public:
  Slot(int index, std::string device, TimingGates* gates, CompletionQueue* done);
  ~Slot();
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  // Queues a job behind the ones already given (they run in order).
  void Enqueue(SlotJob job);
  // Drops the queued jobs and aborts the running one.
  void Cancel();
  // Loop-thread view: the jobs given whose completions were not yet taken, oldest first (the
  // first is running or finished; the others wait). Taken() forgets the oldest: its completion
  // was taken from the CompletionQueue (completions come in the order the jobs were given).
  bool busy() const { return !given_.empty(); }
  size_t given() const { return given_.size(); }
  const std::deque<std::string>& given_lease_ids() const { return given_; }
  void Taken() {
    if (!given_.empty()) given_.pop_front();
  }
  // The slot thread has nothing to run (any thread may ask).
  bool idle() const { return idle_.load(); }
  int index() const { return index_; }
  const std::string& device() const { return device_; }
  // The key of the session kept open for the next job (nullopt: none, or one-shot).
  std::optional<SessionKey> open_key() const;
  const Launcher* open_launcher() const;

 private:
  void Loop();
  v1::Attempt RunJob(SlotJob& job);

  const int index_;
  const std::string device_;
  TimingGates* gates_;
  CompletionQueue* done_;
  std::deque<std::string> given_;  // loop thread only: lease ids given, completions not taken
  std::atomic<bool> idle_{true};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<SlotJob> jobs_;                 // GUARDED_BY(mu_)
  bool stopping_ = false;                    // GUARDED_BY(mu_)
  std::optional<SessionKey> open_key_;       // GUARDED_BY(mu_)
  const Launcher* open_launcher_ = nullptr;  // GUARDED_BY(mu_)
  std::atomic<bool> cancel_{false};
  Notifier cancel_fd_;
  std::unique_ptr<Session> session_;  // slot thread only
  const Launcher* session_launcher_ = nullptr;
  std::thread thread_;
};

}  // namespace fleetsweep
