// ResultOutbox: results sent to the coordinator and not yet acknowledged. A result is re-sent
// every resend_interval seconds until ResultAck names its lease; nothing is dropped while the
// coordinator is away (a restarted coordinator gets them again).
//
// Thread-safety: none; the agent's loop thread owns it. Time comes from the caller (injected
// clock), so resends are unit-tested without sleeping.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <vector>

namespace fleetsweep {

class ResultOutbox {
 public:
  explicit ResultOutbox(double resend_interval = 3.0) : resend_interval_(resend_interval) {}

  // Remembers an encoded Result envelope just sent at `now`.
  void Add(const std::string& lease_id, std::string bytes, double now);
  // The coordinator acknowledged it: forget it. Unknown ids are ignored.
  void Ack(const std::string& lease_id);
  // Envelopes due for a resend at `now` (marked as sent at `now`).
  std::vector<const std::string*> Due(double now);
  // When the next resend is due (infinity when empty).
  double NextDue() const;
  size_t size() const { return pending_.size(); }
  bool empty() const { return pending_.empty(); }

 private:
  struct Pending {
    std::string bytes;
    double last_sent;
  };
  double resend_interval_;
  std::map<std::string, Pending> pending_;
};

}  // namespace fleetsweep
