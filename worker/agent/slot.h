// Slot: one execution at a time on one device, on its own thread, through a Session it owns.
//
// The loop thread hands a slot a job (Start); the slot thread picks or opens the session for the
// job's key (an open session is kept while it is reusable and its key matches, so a warm
// benchmark process serves consecutive executions), runs the execution holding the device's
// timing gate only for the timed part, and posts the finished attempt to the CompletionQueue,
// whose notifier wakes the loop. Cancel() aborts the running execution at once (an eventfd the
// session polls; the timing gate's waiters are woken).
//
// Ownership: launcher (per job) and gates/queue are not owned; they outlive the slot. The slot
// owns its thread and its session; the destructor cancels and joins.
// Thread-safety: Start/Cancel/open_key from the loop thread; the rest is internal.
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
// only when the queue was empty; TakeAll clears the eventfd, then takes everything queued.
class CompletionQueue {
 public:
  void Push(SlotDone done);
  std::vector<SlotDone> TakeAll();
  int fd() const { return notifier_.fd(); }

 private:
  std::mutex mu_;
  std::deque<SlotDone> done_;  // GUARDED_BY(mu_)
  Notifier notifier_;
};

class Slot {
 public:
  Slot(int index, std::string device, TimingGates* gates, CompletionQueue* done);
  ~Slot();
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  void Start(SlotJob job);  // the slot must be idle (busy() false)
  void Cancel();
  // Loop-thread view: a job was started and its completion not yet taken (MarkIdle).
  bool busy() const { return busy_; }
  void MarkIdle() { busy_ = false; }
  const std::string& lease_id() const { return lease_id_; }
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
  bool busy_ = false;     // loop thread only
  std::string lease_id_;  // loop thread only

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<SlotJob> job_;               // GUARDED_BY(mu_)
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
