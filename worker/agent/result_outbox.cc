#include "worker/agent/result_outbox.h"

#include <algorithm>

#include "common/wire/wire.h"

namespace fleetsweep {

void ResultOutbox::Add(v1::Result result) {
  std::string id = result.lease_id();
  pending_[id] = Pending{std::move(result), -std::numeric_limits<double>::infinity()};
}

void ResultOutbox::Ack(const std::string& lease_id) { pending_.erase(lease_id); }

std::vector<const v1::Result*> ResultOutbox::Due(double now) {
  std::vector<const v1::Result*> due;
  for (auto& [id, p] : pending_) {
    if (now - p.last_sent >= resend_interval_) {
      p.last_sent = now;
      due.push_back(&p.result);
    }
  }
  return due;
}

double ResultOutbox::NextDue() const {
  double next = std::numeric_limits<double>::infinity();
  for (const auto& [id, p] : pending_) next = std::min(next, p.last_sent + resend_interval_);
  return next;
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
