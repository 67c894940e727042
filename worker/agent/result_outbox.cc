#include "worker/agent/result_outbox.h"

#include <algorithm>

#include "common/wire/wire.h"

namespace fleetsweep {

void ResultOutbox::Add(v1::Result result) {
  std::string id = result.lease_id();
  const uint64_t g = ++generation_;
  pending_[id] = Pending{std::move(result), -std::numeric_limits<double>::infinity(), g};
  fresh_.push_back(Scheduled{std::move(id), g});
}

void ResultOutbox::Ack(const std::string& lease_id) {
  pending_.erase(lease_id);  // its schedule entries go stale and are skipped
  SkipStale(&fresh_);
  SkipStale(&sent_);
}

const ResultOutbox::Pending* ResultOutbox::Live(const Scheduled& s) const {
  auto it = pending_.find(s.lease_id);
  return it != pending_.end() && it->second.generation == s.generation ? &it->second : nullptr;
}

void ResultOutbox::SkipStale(std::deque<Scheduled>* q) const {
  while (!q->empty() && Live(q->front()) == nullptr) q->pop_front();
}

std::vector<const v1::Result*> ResultOutbox::Due(double now) {
  std::vector<const v1::Result*> due;
  auto send = [&](const Scheduled& s) {
    Pending& p = pending_.at(s.lease_id);
    p.last_sent = now;
    p.generation = ++generation_;
    due.push_back(&p.result);
    sent_.push_back(Scheduled{s.lease_id, p.generation});
  };
  // Resends first, then new results: each pass takes only entries queued before it started.
  for (size_t n = sent_.size(); n > 0; --n) {
    const Pending* p = Live(sent_.front());
    if (p != nullptr && now - p->last_sent < resend_interval_) break;  // the rest are later
    if (p != nullptr) send(sent_.front());
    sent_.pop_front();
  }
  while (!fresh_.empty()) {
    if (Live(fresh_.front()) != nullptr) send(fresh_.front());
    fresh_.pop_front();
  }
  return due;
}

double ResultOutbox::NextDue() const {
  for (const Scheduled& s : fresh_) {
    if (Live(s) != nullptr) return -std::numeric_limits<double>::infinity();
  }
  for (const Scheduled& s : sent_) {
    if (const Pending* p = Live(s)) return p->last_sent + resend_interval_;
  }
  return std::numeric_limits<double>::infinity();
}

std::vector<std::string> PackResults(const std::vector<const v1::Result*>& results,
                                     size_t max_bytes) {
  std::vector<std::string> out;
  v1::Envelope env;
  auto* list = env.mutable_results()->mutable_results();
  // The envelope borrows the outbox's results instead of copying them (a result holds its
  // attempt with every sample and info entry): added as allocated, serialized, released again.
  // Neither side has an arena, so adding and releasing move only pointers; serializing reads.
  auto flush = [&] {
    if (list->empty()) return;
    out.push_back(EncodeEnvelopeInPlace(&env));
    while (!list->empty()) static_cast<void>(list->ReleaseLast());  // the outbox's again
  };
  size_t bytes = 0;
  for (const v1::Result* r : results) {
    const size_t size = r->ByteSizeLong();
    if (!list->empty() && bytes + size > max_bytes) {
      flush();
      bytes = 0;
    }
    list->AddAllocated(const_cast<v1::Result*>(r));
    bytes += size;
  }
  flush();
  return out;
}

}  // namespace fleetsweep
