// The scheduler's writes to the result store: configuration records (one at a time, or
// collected between BeginBatch and EndBatch), the batched attempt write of StoreAhead, and the
// back-off while the store refuses writes (no leases are granted until a probe write succeeds).
#include <algorithm>
#include <set>

#include "coordinator/scheduler/scheduler.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

Status Scheduler::PersistConfig(int index) {
  if (batching_) {
    dirty_configs_.insert(index);  // written by EndBatch, after the batch's attempts
    return Status::Ok();
  }
  Status s = store_->PutConfigs(spec_.name, {configs_.Record(index)});
  NoteStoreWrite(s);
  return s;
}

void Scheduler::PersistChanged() {
  for (int index : configs_.TakeChanged()) {
    Status s = PersistConfig(index);
    if (!s.ok()) spdlog::warn("store: {}", s.ToString());
  }
}

void Scheduler::BeginBatch() { batching_ = true; }

Status Scheduler::EndBatch() {
  batching_ = false;
  if (dirty_configs_.empty()) return Status::Ok();
  std::vector<v1::ConfigRecord> records;
  for (int i : dirty_configs_) records.push_back(configs_.Record(i));
  dirty_configs_.clear();
  Status s = store_->PutConfigs(spec_.name, records);
  NoteStoreWrite(s);
  if (!s.ok()) spdlog::warn("store: {}", s.ToString());
  return s;
}

void Scheduler::NoteStoreWrite(const Status& s) {
  if (s.ok()) {
    if (store_failing_) {
      spdlog::info("store: writes succeed again after {:.1f} s; granting leases again",
                   StoreFailingSeconds(now_));
    }
    store_failing_ = false;
    store_failing_since_ = -1;
    store_probe_backoff_ = 0;
    store_error_ = Status::Ok();
    return;
  }
  if (!store_failing_) {
    store_failing_ = true;
    store_failing_since_ = now_ > 0 ? now_ : -1;
    spdlog::error("store: a write failed ({}); no leases are granted until writes succeed",
                  s.ToString());
  }
  store_error_ = s;
  store_probe_backoff_ =
      std::min(options_.store_probe_max_seconds,
               std::max(options_.store_probe_min_seconds, store_probe_backoff_ * 2));
  next_store_probe_ = now_ + store_probe_backoff_;
}

void Scheduler::ProbeStore(double now) {
  if (!store_failing_) return;
  if (store_failing_since_ < 0) store_failing_since_ = now;
  if (now < next_store_probe_ || configs_.size() == 0) return;
  // A real write of an unchanged record: succeeds only when the store takes writes again.
  NoteStoreWrite(store_->PutConfigs(spec_.name, {configs_.Record(0)}));
}

double Scheduler::StoreFailingSeconds(double now) const {
  if (!store_failing_) return 0;
  return store_failing_since_ < 0 ? 1e-9 : std::max(1e-9, now - store_failing_since_);
}

void Scheduler::StoreAhead(const std::vector<ResultRef>& batch) {
  std::vector<v1::Attempt> attempts;
  std::set<std::string> ids;
  for (const ResultRef& r : batch) {
    const std::string& id = r.result->attempt().attempt_id();
    if (RefuseReason(*r.worker_id, *r.identity, *r.result) != nullptr) continue;
    if (leases_.Counted(id) || stored_ahead_.count(id) || !ids.insert(id).second) continue;
    attempts.push_back(r.result->attempt());
  }
  if (attempts.size() < 2) return;  // one result: OnResult writes it itself
  StatusOr<std::vector<bool>> put = store_->PutAttemptsTaking(spec_.name, std::move(attempts), {});
  NoteStoreWrite(put.status());
  if (put.ok()) stored_ahead_.insert(ids.begin(), ids.end());
}

}  // namespace fleetsweep
