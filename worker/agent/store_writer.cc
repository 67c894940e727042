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

namespace {

std::string EventOf(const v1::Attempt& a) {
  nlohmann::json ev = {{"type", "attempt"},
                       {"config_key", a.config_key()},
                       {"attempt_id", a.attempt_id()},
                       {"node", a.node()},
                       {"ok", a.ok()},
                       {"samples", a.samples_size()},
                       {"failure", v1::FailureClass_Name(a.failure_class())}};
  return ev.dump();
}

}  // namespace

void StoreWriter::WriteBatch(std::vector<SlotDone>& batch) {
  // One PutAttempts per sweep in the batch (one Redis round trip each).
  std::vector<bool> done(batch.size(), false);
  std::vector<size_t> taken;
  std::vector<v1::Attempt> attempts;
  std::vector<std::string> events;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (done[i]) continue;
    const std::string& sweep = batch[i].lease.sweep();
    taken.clear();
    attempts.clear();
    events.clear();
    for (size_t j = i; j < batch.size(); ++j) {
      if (done[j] || batch[j].lease.sweep() != sweep) continue;
      done[j] = true;
      taken.push_back(j);
      events.push_back(EventOf(batch[j].attempt));
      attempts.push_back(std::move(batch[j].attempt));
    }
    auto put = store_->PutAttempts(sweep, attempts, events);
    if (!put.ok()) {
      spdlog::warn("worker: store: {} ({} attempts; the coordinator will store them)",
                   put.status().message(), attempts.size());
    }
    for (size_t k = 0; k < taken.size(); ++k) batch[taken[k]].attempt = std::move(attempts[k]);
  }
}

void StoreWriter::Loop() {
  while (true) {
    std::vector<SlotDone> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) break;  // stopping with nothing left
      while (!queue_.empty() && batch.size() < kMaxBatch) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      writing_ += batch.size();
    }
    WriteBatch(batch);
    const size_t n = batch.size();
    for (SlotDone& d : batch) stored_->Push(std::move(d));
    std::lock_guard<std::mutex> lock(mu_);
    writing_ -= n;
  }
}

}  // namespace fleetsweep
