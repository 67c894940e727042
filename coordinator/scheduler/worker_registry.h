// WorkerRegistry: the workers a scheduler knows: each worker's node (name, slots, platform), the
// peer identity it said hello with, when it was last heard from, the ids of the leases it holds,
// and the dispatcher's per-worker reference schedule. No clock inside: callers pass `now`.
// The registry never expires a lease itself: calls that drop a worker or its leases return the
// lease ids and the Scheduler expires them (LeaseTable, ConfigTable).
// Thread-safety: not thread-safe (the scheduler's thread only).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fleetsweep/v1/wire.pb.h"

namespace fleetsweep {

// When a worker runs the reference configuration next (kept and used by the Dispatcher).
struct ReferenceSchedule {
  int leases_since_reference = 0;
  int gap = 0;      // leases until the next reference on this worker (drawn per period)
  bool due = true;  // the next lease is a reference (the first lease of every worker is)
};

struct WorkerInfo {
  v1::NodeInfo node;
  std::string identity;  // the peer's CurveZMQ public key ("" without Curve)
  double last_seen = 0;
  std::set<std::string> leases;  // outstanding leases held
  ReferenceSchedule reference;
};

class WorkerRegistry {
 public:
  // Registers the worker (or refreshes it: a hello again after a coordinator or worker restart).
  // When the worker id holds leases under another identity, another peer has taken the id over:
  // those leases are removed from the worker and returned for the caller to expire.
  std::set<std::string> Hello(const std::string& worker_id, const v1::NodeInfo& node,
                              const std::string& identity, double now);
  bool Knows(const std::string& worker_id) const { return workers_.count(worker_id) > 0; }
  // nullptr when unknown.
  WorkerInfo* Find(const std::string& worker_id);
  const WorkerInfo* Find(const std::string& worker_id) const;
  // Marks the worker heard from at `now`; false (and nothing changes) when it is unknown.
  bool Touch(const std::string& worker_id, double now);
  // The name of the worker's node ("" for an unknown worker; the worker id when it sent none).
  std::string NodeName(const std::string& worker_id) const;
  // Lease bookkeeping; unknown workers are ignored.
  void AddLease(const std::string& worker_id, const std::string& lease_id);
  void DropLease(const std::string& worker_id, const std::string& lease_id);
  // Forgets the worker; returns the leases it held (nullopt when it was unknown).
  std::optional<std::set<std::string>> Remove(const std::string& worker_id);
  // Workers silent for more than `timeout` seconds at `now`, in id order.
  std::vector<std::string> Silent(double now, double timeout) const;
  std::vector<std::string> Ids() const;
  int64_t size() const { return static_cast<int64_t>(workers_.size()); }
  int64_t Slots() const;  // sum of the workers' slots
  int64_t Busy() const;   // leases held, over all workers

 private:
  std::map<std::string, WorkerInfo> workers_;
};

}  // namespace fleetsweep
