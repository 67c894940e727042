#include "worker/agent/slot.h"

namespace fleetsweep {

void CompletionQueue::Push(SlotDone done, bool urgent) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake = done_.empty() || urgent;
    done_.push_back(std::move(done));
    wake = wake || done_.size() >= wake_count_;
  }
  // Only the first of a batch wakes the loop (TakeAll clears the eventfd before it takes, so a
  // push into a non-empty queue is taken with the one that already notified), unless the slot
  // has nothing left to run or the batch is full.
  if (wake) notifier_.Notify();
}

size_t CompletionQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_.size();
}

std::vector<SlotDone> CompletionQueue::TakeAll() {
  notifier_.Clear();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<SlotDone> out(std::make_move_iterator(done_.begin()),
                            std::make_move_iterator(done_.end()));
  done_.clear();
  return out;
}

Slot::Slot(int index, std::string device, TimingGates* gates, CompletionQueue* done)
    : index_(index), device_(std::move(device)), gates_(gates), done_(done) {
  gates_->Share(device_);
  thread_ = std::thread([this] { Loop(); });
}

Slot::~Slot() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  Cancel();
  cv_.notify_all();
  thread_.join();
}

void Slot::Enqueue(SlotJob job) {
  given_.push_back(job.lease.lease_id());
  {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.store(false);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_all();
}

void Slot::Cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.clear();
  }
  cancel_.store(true);
  cancel_fd_.Notify();
  gates_->WakeAll();
}

std::optional<SessionKey> Slot::open_key() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_key_;
}

const Launcher* Slot::open_launcher() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_launcher_;
}

v1::Attempt Slot::RunJob(SlotJob& job) {
  if (job.launcher == nullptr) {
    v1::Attempt a;
    a.set_ok(false);
    a.set_failure_class(v1::FAILURE_CLASS_LAUNCH);
    a.set_failure_detail("cannot run this spec: " + job.spec_error);
    a.set_exit_code(-1);
    return a;
  }
  job.request.cancel = &cancel_;
  job.request.cancel_fd = cancel_fd_.fd();
  const bool keep = session_ && session_launcher_ == job.launcher && session_->Reusable() &&
                    session_->key().Matches(job.request.params);
  if (!keep) {
    session_.reset();  // closes a warm process whose key does not match (or that is spent)
    session_ = job.launcher->Open(job.request);
    session_launcher_ = job.launcher;
  }
  v1::Attempt a = session_->Execute(job.request, gates_->ForDevice(device_));
  if (!session_->Reusable()) session_.reset();
  return a;
}

void Slot::Loop() {
  while (true) {
    SlotJob job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) break;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      // A cancel aborts the running execution only: the next job starts uncancelled.
      cancel_.store(false);
      cancel_fd_.Clear();
    }
    v1::Attempt attempt = RunJob(job);
    bool last;
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_launcher_ = session_ ? session_launcher_ : nullptr;
      if (session_ && session_launcher_ && session_launcher_->persistent()) {
        open_key_ = session_->key();
      } else {
        open_key_.reset();
      }
      last = jobs_.empty();
      if (last) idle_.store(true);
    }
    done_->Push(SlotDone{index_, std::move(job.lease), std::move(attempt)}, /*urgent=*/last);
  }
  session_.reset();
}

}  // namespace fleetsweep
