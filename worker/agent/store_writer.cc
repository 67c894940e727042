#include "worker/agent/store_writer.h"

#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"

namespace fleetsweep {

StoreWriter::StoreWriter(ResultStore* store, CompletionQueue* stored)
    : store_(store), stored_(stored) {
  thread_ = std::thread([this] { Loop(); });
}

StoreWriter::~StoreWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void StoreWriter::Enqueue(SlotDone done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(done));
  }
  cv_.notify_all();
}

size_t StoreWriter::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + writing_;
}

void StoreWriter::Loop() {
  while (true) {
    SlotDone d;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) break;  // stopping with nothing left
      d = std::move(queue_.front());
      queue_.pop_front();
      ++writing_;
    }
    const v1::Attempt& a = d.attempt;
    auto put = store_->PutAttempt(d.lease.sweep(), a);
    if (!put.ok()) {
      spdlog::warn("worker: store: {} (the coordinator will store it)", put.status().message());
    } else {
      nlohmann::json ev = {{"type", "attempt"},
                           {"config_key", a.config_key()},
                           {"attempt_id", a.attempt_id()},
                           {"node", a.node()},
                           {"ok", a.ok()},
                           {"samples", a.samples_size()},
                           {"failure", v1::FailureClass_Name(a.failure_class())}};
      (void)store_->AppendEvent(d.lease.sweep(), ev.dump());
    }
    stored_->Push(std::move(d));
    std::lock_guard<std::mutex> lock(mu_);
    --writing_;
  }
}

}  // namespace fleetsweep
