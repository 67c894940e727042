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
  size_t bytes = 0;
  for (const v1::Result* r : results) {
    const size_t size = r->ByteSizeLong();
    if (env.results().results_size() > 0 && bytes + size > max_bytes) {
      out.push_back(EncodeEnvelope(std::move(env)));
      env = v1::Envelope();
      bytes = 0;
    }
    *env.mutable_results()->add_results() = *r;
    bytes += size;
  }
  if (env.results().results_size() > 0) out.push_back(EncodeEnvelope(std::move(env)));
  return out;
}

}  // namespace fleetsweep
