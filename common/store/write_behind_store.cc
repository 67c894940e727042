#include "common/store/write_behind_store.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unordered_map>

#include "common/store/store_checks.h"

namespace fleetsweep {
namespace {

using Seconds = std::chrono::duration<double>;

}  // namespace

WriteBehindStore::WriteBehindStore(ResultStore* inner, WriteBehindOptions options)
    : inner_(inner), options_(options) {
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  writer_ = std::thread([this] { WriterLoop(); });
}

WriteBehindStore::~WriteBehindStore() {
  {
    // Wait for the writer (bounded); a store that refuses writes now is not waited for: what
    // it holds was never acknowledged, and its workers keep those results.
    std::unique_lock<std::mutex> lock(mu_);
    drained_.wait_for(lock, Seconds(options_.drain_timeout_seconds),
                      [&] { return durable_ == accepted_ || !failing_.ok(); });
    stopping_ = true;
    if (durable_ != accepted_) {
      std::fprintf(stderr,
                   "store: %llu write(s) to %s dropped at close (%s); they were never "
                   "acknowledged\n",
                   static_cast<unsigned long long>(accepted_ - durable_),
                   inner_->Describe().c_str(), failing_.ToString().c_str());
    }
  }
  wake_writer_.notify_all();
  writer_.join();
  if (event_fd_ >= 0) close(event_fd_);
}

Status WriteBehindStore::Accept(Op op) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failing_.ok()) return failing_;
    if (stopping_) return Status::Unavailable("store: closing");
    op.ticket = ++accepted_;
    queue_.push_back(std::move(op));
  }
  wake_writer_.notify_one();
  return Status::Ok();
}

Status WriteBehindStore::PutConfigs(const std::string& sweep,
                                    const std::vector<v1::ConfigRecord>& configs) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  for (const auto& c : configs) FS_RETURN_IF_ERROR(CheckConfigRecord(c));
  if (configs.empty()) return Status::Ok();
  Op op;
  op.sweep = sweep;
  op.configs = configs;
  return Accept(std::move(op));
}

StatusOr<bool> WriteBehindStore::PutAttempt(const std::string& sweep, const v1::Attempt& attempt) {
  FS_ASSIGN_OR_RETURN(std::vector<bool> fresh, PutAttempts(sweep, {attempt}, {}));
  return static_cast<bool>(fresh[0]);
}

StatusOr<std::vector<bool>> WriteBehindStore::PutAttempts(const std::string& sweep,
                                                          const std::vector<v1::Attempt>& attempts,
                                                          const std::vector<std::string>& events) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  for (const v1::Attempt& a : attempts) FS_RETURN_IF_ERROR(CheckAttempt(a));
  Op op;
  op.sweep = sweep;
  op.attempts = attempts;
  op.events = events;
  if (!attempts.empty() || !events.empty()) FS_RETURN_IF_ERROR(Accept(std::move(op)));
  return std::vector<bool>(attempts.size(), true);
}

Status WriteBehindStore::AppendEvent(const std::string& sweep, const std::string& event_json) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  Op op;
  op.sweep = sweep;
  op.events.push_back(event_json);
  return Accept(std::move(op));
}

Status WriteBehindStore::PutSpec(const std::string& sweep, const std::string& spec_yaml) {
  return Read([&] { return inner_->PutSpec(sweep, spec_yaml); });
}

StatusOr<std::optional<std::string>> WriteBehindStore::GetSpec(const std::string& sweep) {
  return Read([&] { return inner_->GetSpec(sweep); });
}

StatusOr<std::vector<std::string>> WriteBehindStore::ListSweeps() {
  return Read([&] { return inner_->ListSweeps(); });
}

StatusOr<std::vector<v1::ConfigRecord>> WriteBehindStore::LoadConfigs(const std::string& sweep) {
  return Read([&] { return inner_->LoadConfigs(sweep); });
}

StatusOr<std::vector<v1::Attempt>> WriteBehindStore::LoadAttempts(const std::string& sweep) {
  return Read([&] { return inner_->LoadAttempts(sweep); });
}

Status WriteBehindStore::ForEachAttempt(const std::string& sweep,
                                        const std::function<Status(const v1::Attempt&)>& visit) {
  return Read([&] { return inner_->ForEachAttempt(sweep, visit); });
}

StatusOr<int64_t> WriteBehindStore::CountAttempts(const std::string& sweep) {
  return Read([&] { return inner_->CountAttempts(sweep); });
}

StatusOr<std::vector<std::string>> WriteBehindStore::ReadEvents(const std::string& sweep,
                                                                int64_t from, int64_t max) {
  return Read([&] { return inner_->ReadEvents(sweep, from, max); });
}

Status WriteBehindStore::Flush() {
  return Read([&] { return inner_->Flush(); });
}

uint64_t WriteBehindStore::accepted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return accepted_;
}

uint64_t WriteBehindStore::durable() const {
  std::lock_guard<std::mutex> lock(mu_);
  return durable_;
}

int64_t WriteBehindStore::inner_writes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_writes_;
}

void WriteBehindStore::ClearNotification() {
  uint64_t n = 0;
  if (event_fd_ >= 0) (void)!read(event_fd_, &n, sizeof n);
}

Status WriteBehindStore::Drain(double timeout_seconds) {
  if (timeout_seconds < 0) timeout_seconds = options_.drain_timeout_seconds;
  std::unique_lock<std::mutex> lock(mu_);
  // A store failing right now answers at once (as a synchronous store would); otherwise wait
  // for the writer, and give up when it starts failing or the time is up.
  const bool done = drained_.wait_for(lock, Seconds(timeout_seconds),
                                      [&] { return durable_ == accepted_ || !failing_.ok(); });
  if (!failing_.ok()) return failing_;
  if (!done) {
    return Status::Unavailable("store: " + std::to_string(accepted_ - durable_) + " write(s) to " +
                               inner_->Describe() + " not durable after " +
                               std::to_string(timeout_seconds) + " s");
  }
  return Status::Ok();
}

void WriteBehindStore::WriterLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_writer_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and nothing left
    // A group: everything queued for the first op's sweep, in order.
    std::vector<Op> group;
    const std::string sweep = queue_.front().sweep;
    while (!queue_.empty() && queue_.front().sweep == sweep) {
      group.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    bool attempts_done = false;
    double backoff = options_.retry_min_seconds;
    while (true) {
      lock.unlock();
      Status st;
      {
        std::lock_guard<std::mutex> inner_lock(inner_mu_);
        st = WriteGroup(group, &attempts_done);
      }
      lock.lock();
      if (st.ok()) {
        durable_ = group.back().ticket;
        failing_ = Status::Ok();
        const uint64_t one = 1;
        if (event_fd_ >= 0) (void)!write(event_fd_, &one, sizeof one);
        drained_.notify_all();
        break;
      }
      failing_ = st;
      drained_.notify_all();
      if (stopping_) {  // the destructor gave up waiting: drop what is left
        queue_.clear();
        return;
      }
      wake_writer_.wait_for(lock, Seconds(backoff), [&] { return stopping_; });
      backoff = std::min(options_.retry_max_seconds, backoff * 2);
    }
  }
}

Status WriteBehindStore::WriteGroup(const std::vector<Op>& group, bool* attempts_done) {
  const std::string& sweep = group.front().sweep;
  if (!*attempts_done) {
    std::vector<v1::Attempt> attempts;
    std::vector<std::string> events;
    for (const Op& op : group) {
      attempts.insert(attempts.end(), op.attempts.begin(), op.attempts.end());
      events.insert(events.end(), op.events.begin(), op.events.end());
    }
    if (!attempts.empty() || !events.empty()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++inner_writes_;
      }
      FS_RETURN_IF_ERROR(inner_->PutAttempts(sweep, attempts, events).status());
    }
    *attempts_done = true;
  }
  // The last record per key, in the order keys first appear.
  std::vector<v1::ConfigRecord> records;
  std::unordered_map<std::string, size_t> at;
  for (const Op& op : group) {
    for (const v1::ConfigRecord& r : op.configs) {
      auto [it, fresh] = at.emplace(r.config_key(), records.size());
      if (fresh) {
        records.push_back(r);
      } else {
        records[it->second] = r;
      }
    }
  }
  if (records.empty()) return Status::Ok();
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++inner_writes_;
  }
  return inner_->PutConfigs(sweep, records);
}

}  // namespace fleetsweep
