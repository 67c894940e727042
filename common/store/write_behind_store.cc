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
  return QueueAttempts(sweep, attempts, events);
}

StatusOr<std::vector<bool>> WriteBehindStore::PutAttemptsTaking(
    const std::string& sweep, std::vector<v1::Attempt>&& attempts,
    const std::vector<std::string>& events) {
  return QueueAttempts(sweep, std::move(attempts), events);
}

StatusOr<std::vector<bool>> WriteBehindStore::QueueAttempts(
    const std::string& sweep, std::vector<v1::Attempt> attempts,
    const std::vector<std::string>& events) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  for (const v1::Attempt& a : attempts) FS_RETURN_IF_ERROR(CheckAttempt(a));
  const size_t n = attempts.size();
  Op op;
  op.sweep = sweep;
  op.attempts = std::move(attempts);
  op.events = events;
  if (n > 0 || !events.empty()) FS_RETURN_IF_ERROR(Accept(std::move(op)));
  return std::vector<bool>(n, true);
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
    std::vector<Op> ops;
    const std::string sweep = queue_.front().sweep;
    while (!queue_.empty() && queue_.front().sweep == sweep) {
      ops.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    lock.unlock();  // merging hashes record keys: not while Accept waits for the lock
    const Op group = Merge(std::move(ops));
    lock.lock();
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
        durable_ = group.ticket;
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

WriteBehindStore::Op WriteBehindStore::Merge(std::vector<Op> group) {
  Op merged;
  merged.sweep = group.front().sweep;
  merged.ticket = group.back().ticket;
  std::unordered_map<std::string, size_t> at;  // record key -> its place in merged.configs
  for (Op& op : group) {
    for (v1::Attempt& a : op.attempts) merged.attempts.push_back(std::move(a));
    for (std::string& e : op.events) merged.events.push_back(std::move(e));
    for (v1::ConfigRecord& r : op.configs) {
      auto [it, fresh] = at.emplace(r.config_key(), merged.configs.size());
      if (fresh) {
        merged.configs.push_back(std::move(r));
      } else {
        merged.configs[it->second] = std::move(r);
      }
    }
  }
  return merged;
}

Status WriteBehindStore::WriteGroup(const Op& group, bool* attempts_done) {
  if (!*attempts_done) {
    if (!group.attempts.empty() || !group.events.empty()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++inner_writes_;
      }
      FS_RETURN_IF_ERROR(inner_->PutAttempts(group.sweep, group.attempts, group.events).status());
    }
    *attempts_done = true;
  }
  if (group.configs.empty()) return Status::Ok();
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++inner_writes_;
  }
  return inner_->PutConfigs(group.sweep, group.configs);
}

}  // namespace fleetsweep
