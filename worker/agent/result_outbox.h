// ResultOutbox: results not yet acknowledged by the coordinator. A result added is due at once;
// after it is sent it is due again every resend_interval seconds until a ResultAcks names its
// lease; nothing is dropped while the coordinator is away (a restarted coordinator gets them
// again). Everything due at one moment goes out together: PackResults puts it in as few Results
// envelopes as the size bound allows. Add, Ack, Due and NextDue cost what they touch, not the
// number of results waiting (a coordinator away for a while leaves thousands).
//
// Thread-safety: none; the agent's loop thread owns it. Time comes from the caller (injected
// clock), so resends are unit-tested without sleeping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleetsweep/v1/wire.pb.h"

namespace fleetsweep {

class ResultOutbox {
 public:
  explicit ResultOutbox(double resend_interval = 3.0) : resend_interval_(resend_interval) {}

  // Keeps a result (by its lease id; a second Add replaces it), due at once.
  void Add(v1::Result result);
  // The coordinator acknowledged it: forget it. Unknown ids are ignored.
  void Ack(const std::string& lease_id);
  // Results due at `now` (new ones and resends), marked as sent at `now`. The pointers stay
  // valid until the next Add or Ack.
  std::vector<const v1::Result*> Due(double now);
  // When the next send is due (-infinity when a new result waits; infinity when empty).
  double NextDue() const;
  size_t size() const { return pending_.size(); }
  bool empty() const { return pending_.empty(); }

 private:
  struct Pending {
    v1::Result result;
    double last_sent;
    uint64_t generation;  // of the latest Add or send: older schedule entries are stale
  };
  struct Scheduled {
    std::string lease_id;
    uint64_t generation;
  };
  // Drops stale entries (acked, replaced or rescheduled) from the front of `q`.
  void SkipStale(std::deque<Scheduled>* q) const;
  const Pending* Live(const Scheduled& s) const;

  double resend_interval_;
  std::unordered_map<std::string, Pending> pending_;  // node-based: results never move
  std::deque<Scheduled> fresh_;                       // added, never sent: due at once
  std::deque<Scheduled> sent_;  // in the order sent, so in the order due again
  uint64_t generation_ = 0;
};

// Encoded Results envelopes holding `results` in order, each at most about `max_bytes` (a single
// larger result gets an envelope of its own).
std::vector<std::string> PackResults(const std::vector<const v1::Result*>& results,
                                     size_t max_bytes = 8u << 20);

}  // namespace fleetsweep
