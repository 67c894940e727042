#include "worker/agent/result_outbox.h"

#include <algorithm>

namespace fleetsweep {

void ResultOutbox::Add(const std::string& lease_id, std::string bytes, double now) {
  pending_[lease_id] = Pending{std::move(bytes), now};
}

void ResultOutbox::Ack(const std::string& lease_id) { pending_.erase(lease_id); }

std::vector<const std::string*> ResultOutbox::Due(double now) {
  std::vector<const std::string*> due;
  for (auto& [id, p] : pending_) {
    if (now - p.last_sent >= resend_interval_) {
      p.last_sent = now;
      due.push_back(&p.bytes);
    }
  }
  return due;
}

double ResultOutbox::NextDue() const {
  double next = std::numeric_limits<double>::infinity();
  for (const auto& [id, p] : pending_) next = std::min(next, p.last_sent + resend_interval_);
  return next;
}

}  // namespace fleetsweep
