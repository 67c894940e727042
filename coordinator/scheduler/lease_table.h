// LeaseTable: the scheduler's record of the leases it granted. Two views:
//   * outstanding leases (granted, not yet returned or expired), each with its deadline, and
//   * grants (who a lease was given to and for what), kept for EVERY lease ever granted by this
//     table (about 100 bytes each), so that late and re-sent results are checked against their
//     holder after the lease itself has been returned or has expired.
// No clock inside: callers pass `now` (seconds, monotonic). Nothing here touches the store, the
// configurations or the workers: the Scheduler does that with what these calls return.
// Thread-safety: not thread-safe (the scheduler's thread only).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "google/protobuf/repeated_ptr_field.h"

namespace fleetsweep {

// One outstanding lease.
struct LeaseInfo {
  int config = -1;  // index in the ConfigTable; -1 for a reference outside the space
  std::string worker_id;
  double deadline = 0;
  double lease_seconds = 0;  // the deadline's length; a waiting lease is renewed by this much
  double granted_at = 0;     // renewals stop (kMaxPrefetchPerSlot + 1) lease lengths after it
  bool reference = false;
};

// Who a lease was granted to and for what.
struct LeaseGrant {
  std::string worker_id;
  std::string identity;  // the peer's CurveZMQ public key ("" without Curve)
  std::string config_key;
  bool reference = false;
};

class LeaseTable {
 public:
  // A new lease id: <config_key>-<epoch>-<128 random bits as 32 hex digits>[-ref]. Unguessable,
  // so a peer cannot report (or pre-empt) a lease it was not given.
  static std::string NewId(const std::string& config_key, const std::string& epoch, bool reference);

  // Records a granted lease (outstanding) and its grant (kept). A second Add with the same id
  // replaces both.
  void Add(const std::string& lease_id, const LeaseInfo& info, LeaseGrant grant);
  // The grant of a lease this table ever granted; nullptr for an id it never granted.
  const LeaseGrant* FindGrant(const std::string& lease_id) const;
  // The outstanding lease, or nullptr when it was returned, expired or never granted.
  const LeaseInfo* Find(const std::string& lease_id) const;
  // Removes an outstanding lease and returns it; nullopt when it is not outstanding. Its grant
  // stays.
  std::optional<LeaseInfo> Take(const std::string& lease_id);
  // Renews the deadlines of `worker_id`'s outstanding leases named in `waiting` (prefetched, not
  // started) to now + lease length, never past granted_at + (kMaxPrefetchPerSlot + 1) lease
  // lengths and never earlier than before. Leases of other workers and unknown ids are ignored.
  void RenewWaiting(const std::string& worker_id,
                    const google::protobuf::RepeatedPtrField<std::string>& waiting, double now);
  // Outstanding leases whose deadline is before `now`, in id order.
  std::vector<std::string> Overdue(double now) const;
  int64_t outstanding() const { return static_cast<int64_t>(leases_.size()); }

 private:
  std::map<std::string, LeaseInfo> leases_;
  std::unordered_map<std::string, LeaseGrant> grants_;
};

}  // namespace fleetsweep
